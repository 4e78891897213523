"""Money is a Decimal with two places; amounts moved are strictly positive."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from domain.errors import InvalidAmountError

CENT = Decimal("0.01")
ZERO = Decimal("0.00")


def amount(value: Decimal | int | str) -> Decimal:
    """A positive amount with at most two decimal places, as a two-place Decimal."""
    try:
        number = Decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        raise InvalidAmountError(f"amount {value!r} is not a number") from None
    if not number.is_finite():
        raise InvalidAmountError(f"amount {value} is not a finite number")
    if number <= 0:
        raise InvalidAmountError(f"amount must be positive, got {value}")
    exponent = number.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -2 and number != number.quantize(CENT):
        raise InvalidAmountError(f"amount {value} has more than 2 decimal places")
    return number.quantize(CENT)


def fmt(value: Decimal) -> str:
    """Two-place text, as in `alice has only 60.00`."""
    return f"{value.quantize(CENT):.2f}"
