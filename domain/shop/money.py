"""Prices and amounts: a Decimal with two places, positive and bounded, as the bank's are.

The bounds are the bank's (`domain.money`): every store column that holds the bank's
amounts holds these; arithmetic on them never rounds.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from domain.shop.errors import InvalidPriceError

CENT = Decimal("0.01")
ZERO = Decimal("0.00")
MAX_PRICE = Decimal("1000000000000.00")
CURRENCY = "EUR"


def price(value: Decimal | int | str) -> Decimal:
    """A positive amount of at most MAX_PRICE with at most two decimal places, two-place."""
    try:
        number = Decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        raise InvalidPriceError(f"amount {str(value)[:24]} is not a number") from None
    if not number.is_finite() or number <= 0:
        raise InvalidPriceError(f"an amount is positive, not {str(value)[:24]}")
    if number > MAX_PRICE:
        raise InvalidPriceError(f"amount {str(value)[:24]} is over the maximum of {fmt(MAX_PRICE)}")
    if number != number.quantize(CENT):
        raise InvalidPriceError(f"amount {str(value)[:24]} has more than 2 decimal places")
    return number.quantize(CENT)


def fmt(value: Decimal) -> str:
    return f"{value.quantize(CENT):.2f}"
