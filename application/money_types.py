"""What a money parameter of any domain's use case is made of, in its `Annotated[...]`:

    Amount = Annotated[Decimal, MoneyRules(money.amount, InvalidAmountError, MAX_AMOUNT)]

- a float (JSON's numbers) is judged by its true digits: 0.1 + 0.2 is 0.30000000000000004,
  which has more than 2 decimal places, not 0.30 rounded away;
- the domain's own check of an amount (`check`, on `domain.amounts`) decides, its refusal
  (`refused`) the parameter's message; with `zero=True`, 0 passes too (none at all);
- the JSON Schema the sheets, stubs and plans state: a number above 0 (or at least 0) and
  at most `maximum`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from annotated_types import GroupedMetadata
from pydantic import AfterValidator, BeforeValidator, WithJsonSchema

from domain.amounts import ZERO


@dataclass(frozen=True)
class MoneyRules(GroupedMetadata):
    """The validators and the schema of a money parameter, as one marker (pydantic unpacks
    it, in this order)."""

    check: Callable[[Decimal], Decimal]
    refused: type[Exception]
    maximum: Decimal
    zero: bool = False

    @property
    def __is_annotated_types_grouped_metadata__(self) -> Literal[True]:
        return True

    def __iter__(self) -> Iterator[object]:
        yield BeforeValidator(_no_float_noise)
        bound = int(self.maximum)
        if self.zero:
            yield AfterValidator(self._positive_or_zero)
            yield WithJsonSchema({"type": "number", "minimum": 0, "maximum": bound})
        else:
            yield AfterValidator(self._positive)
            yield WithJsonSchema({"type": "number", "exclusiveMinimum": 0, "maximum": bound})

    def _positive(self, value: Decimal) -> Decimal:
        try:
            return self.check(value)
        except self.refused as refusal:
            raise ValueError(str(refusal)) from None

    def _positive_or_zero(self, value: Decimal) -> Decimal:
        return ZERO if value == 0 else self._positive(value)


def _no_float_noise(value: object) -> object:
    # A float such as 0.1 + 0.2 must be judged by its true digits, not rounded away.
    if isinstance(value, float):
        return Decimal(repr(value))
    return value
