"""Money is a Decimal with two places; amounts moved are strictly positive and bounded.

One maximum for any amount (`MAX_AMOUNT`, 10^12 euros) and one for any balance
(`MAX_BALANCE`, 10^15 euros). Both are far inside what every store column holds: Postgres
numeric(20, 2) (below 10^18) and SQLite integer cents (below 2^63 cents, about 9.2 * 10^16
euros), and inside Decimal's default precision (28 digits), so no arithmetic on money ever
rounds or overflows. An amount is judged against its maximum before anything else is done
with it, so `1e999999999` or a 5000-digit number is a refusal, not an error.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from domain.errors import InvalidAmountError

CENT = Decimal("0.01")
ZERO = Decimal("0.00")
MAX_AMOUNT = Decimal("1000000000000.00")
MAX_BALANCE = Decimal("1000000000000000.00")
# Past this many characters, a number is shown by its head and its length.
_SHOWN = 24


def amount(value: Decimal | int | str) -> Decimal:
    """A positive amount of at most MAX_AMOUNT with at most two decimal places, two-place."""
    try:
        number = Decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        raise InvalidAmountError(f"amount {shown(value)} is not a number") from None
    if not number.is_finite():
        raise InvalidAmountError(f"amount {shown(value)} is not a finite number")
    if number <= 0:
        raise InvalidAmountError(f"amount must be positive, got {shown(value)}")
    if number > MAX_AMOUNT:
        raise InvalidAmountError(f"amount {shown(value)} is over the maximum of {fmt(MAX_AMOUNT)}")
    exponent = number.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -2 and number != number.quantize(CENT):
        raise InvalidAmountError(f"amount {shown(value)} has more than 2 decimal places")
    return number.quantize(CENT)


def fmt(value: Decimal) -> str:
    """Two-place text, as in `alice has only 60.00`."""
    return f"{value.quantize(CENT):.2f}"


def shown(value: object) -> str:
    """A number as a message quotes it: whole when short, else its head and its length."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = Decimal(value)  # str() of a long int is refused past 4300 digits
    text = str(value)
    if len(text) <= _SHOWN:
        return text
    digits = sum(char.isdigit() for char in text)
    return f"{text[:20]}... ({digits} digits)"
