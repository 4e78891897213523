"""The bank's money: a Decimal with two places (`domain.amounts`); amounts moved are
strictly positive and bounded.

One maximum for any amount (`MAX_AMOUNT`, 10^12 euros) and one for any balance
(`MAX_BALANCE`, 10^15 euros): the generic bounds of `domain.amounts`, which every store
column holds and no arithmetic on money rounds. An amount is judged against its maximum
before anything else is done with it, so `1e999999999` or a 5000-digit number is a
refusal, not an error.
"""

from __future__ import annotations

from decimal import Decimal

from domain.amounts import CENT, MAX_AMOUNT, MAX_SUM, ZERO, bounded, fmt, shown
from domain.errors import InvalidAmountError

__all__ = ["CENT", "MAX_AMOUNT", "MAX_BALANCE", "ZERO", "amount", "fmt", "shown"]

MAX_BALANCE = MAX_SUM


def amount(value: Decimal | int | str) -> Decimal:
    """A positive amount of at most MAX_AMOUNT with at most two decimal places, two-place."""
    return bounded(value, MAX_AMOUNT, InvalidAmountError)
