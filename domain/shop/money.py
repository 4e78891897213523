"""Prices and amounts: a Decimal with two places, positive and bounded (`domain.amounts`),
as the bank's are.

A price is at most `MAX_PRICE`, the generic bound on one amount: every store column that
holds the bank's amounts holds these; arithmetic on them never rounds.
"""

from __future__ import annotations

from decimal import Decimal

from domain.amounts import CENT, MAX_AMOUNT, ZERO, bounded, fmt, number, shown
from domain.shop.errors import InvalidPriceError

__all__ = ["CENT", "CURRENCY", "MAX_PRICE", "ZERO", "fmt", "price"]

MAX_PRICE = MAX_AMOUNT
CURRENCY = "EUR"


def price(value: Decimal | int | str) -> Decimal:
    """A positive amount of at most MAX_PRICE with at most two decimal places, two-place."""
    given = number(value, InvalidPriceError)
    # The shop's own words for an amount that is not positive, or not finite.
    if not given.is_finite() or given <= 0:
        raise InvalidPriceError(f"an amount is positive, not {shown(value)}")
    return bounded(value, MAX_PRICE, InvalidPriceError)
