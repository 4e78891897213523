"""What a money parameter of any domain's use case is made of, for its `Annotated[...]`.

    Amount = Annotated[
        Decimal, NO_FLOAT_NOISE, positive(money.amount, InvalidAmountError),
        positive_schema(money.MAX_AMOUNT),
    ]

- `NO_FLOAT_NOISE`: a float (JSON's numbers) is judged by its true digits: 0.1 + 0.2 is
  0.30000000000000004, which has more than 2 decimal places, not 0.30 rounded away;
- `positive(check, refused)`: the domain's own check of an amount (`domain.amounts`), its
  refusal the parameter's message; `positive_or_zero` lets 0 through as well;
- `positive_schema(maximum)` and `not_negative_schema(maximum)`: the JSON Schema the
  sheets, stubs and plans state of it.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from pydantic import AfterValidator, BeforeValidator, WithJsonSchema

from domain.amounts import ZERO


def _no_float_noise(value: object) -> object:
    # A float such as 0.1 + 0.2 must be judged by its true digits, not rounded away.
    if isinstance(value, float):
        return Decimal(repr(value))
    return value


NO_FLOAT_NOISE = BeforeValidator(_no_float_noise)


def positive(check: Callable[[Decimal], Decimal], refused: type[Exception]) -> AfterValidator:
    """An amount as `check` takes it; its refusal `refused` is the parameter's message."""
    return AfterValidator(_as_parameter(check, refused))


def positive_or_zero(
    check: Callable[[Decimal], Decimal], refused: type[Exception]
) -> AfterValidator:
    """As `positive`, and 0 too (an amount that may be none)."""
    some = _as_parameter(check, refused)
    return AfterValidator(lambda value: ZERO if value == 0 else some(value))


def _as_parameter(
    check: Callable[[Decimal], Decimal], refused: type[Exception]
) -> Callable[[Decimal], Decimal]:
    def validated(value: Decimal) -> Decimal:
        try:
            return check(value)
        except refused as refusal:
            raise ValueError(str(refusal)) from None

    return validated


def positive_schema(maximum: Decimal) -> WithJsonSchema:
    return WithJsonSchema({"type": "number", "exclusiveMinimum": 0, "maximum": int(maximum)})


def not_negative_schema(maximum: Decimal) -> WithJsonSchema:
    return WithJsonSchema({"type": "number", "minimum": 0, "maximum": int(maximum)})
