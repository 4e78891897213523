"""Money of any domain: a Decimal with two places, positive and bounded.

Two bounds, far inside what every store column holds: Postgres numeric(20, 2) (below
10^18) and SQLite integer cents (below 2^63 cents, about 9.2 * 10^16), and inside
Decimal's default precision (28 digits), so no arithmetic on money ever rounds or
overflows:
- `MAX_AMOUNT` (10^12), the most one amount a use case is given may be: a payment, a
  price, a refund;
- `MAX_SUM` (10^15), the most any sum of such amounts may reach: what an account holds, a
  cap on what one program moves.

An amount is judged against its maximum before anything else is done with it
(`bounded`), so `1e999999999` or a 5000-digit number is a refusal, not an error. A domain
names its own bounds and refusals on these (`domain.money`, `domain.shop.money`).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation

CENT = Decimal("0.01")
ZERO = Decimal("0.00")
MAX_AMOUNT = Decimal("1000000000000.00")
MAX_SUM = Decimal("1000000000000000.00")
# Past this many characters, a number is shown by its head and its length.
_SHOWN = 24


def number(value: Decimal | int | str, refused: Callable[[str], Exception]) -> Decimal:
    """`value` as a Decimal, or `refused` (a domain's error) saying it is not a number."""
    try:
        return Decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        raise refused(f"amount {shown(value)} is not a number") from None


def bounded(
    value: Decimal | int | str, maximum: Decimal, refused: Callable[[str], Exception]
) -> Decimal:
    """A positive amount of at most `maximum` with at most two decimal places, two-place;
    else `refused` (a domain's error) with the reason."""
    amount = number(value, refused)
    if not amount.is_finite():
        raise refused(f"amount {shown(value)} is not a finite number")
    if amount <= 0:
        raise refused(f"amount must be positive, got {shown(value)}")
    if amount > maximum:
        raise refused(f"amount {shown(value)} is over the maximum of {fmt(maximum)}")
    exponent = amount.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -2 and amount != amount.quantize(CENT):
        raise refused(f"amount {shown(value)} has more than 2 decimal places")
    return amount.quantize(CENT)


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
