"""Parameter types of the bank use cases, with the message each refusal gives."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated

from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema

from domain import money
from domain.errors import InvalidAmountError

ACCOUNT_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,31}$"
_ACCOUNT_RE = re.compile(ACCOUNT_PATTERN)


def _account_name(value: str) -> str:
    if not _ACCOUNT_RE.fullmatch(value):
        raise ValueError(
            f"{value!r} is not an account id (1 to 32 lowercase letters, digits, - or _)"
        )
    return value


def _no_float_noise(value: object) -> object:
    # A float such as 0.1 + 0.2 must be judged by its true digits, not rounded away.
    if isinstance(value, float):
        return Decimal(repr(value))
    return value


def _positive(value: Decimal) -> Decimal:
    try:
        return money.amount(value)
    except InvalidAmountError as refusal:
        raise ValueError(str(refusal)) from None


def _not_negative(value: Decimal) -> Decimal:
    return money.ZERO if value == 0 else _positive(value)


AccountName = Annotated[
    str,
    AfterValidator(_account_name),
    WithJsonSchema({"type": "string", "pattern": ACCOUNT_PATTERN}),
]
Amount = Annotated[
    Decimal,
    BeforeValidator(_no_float_noise),
    AfterValidator(_positive),
    WithJsonSchema({"type": "number", "exclusiveMinimum": 0}),
]
OptionalAmount = Annotated[
    Decimal,
    BeforeValidator(_no_float_noise),
    AfterValidator(_not_negative),
    WithJsonSchema({"type": "number", "minimum": 0}),
]
Memo = Annotated[str, Field(max_length=140)]
Owner = Annotated[str, Field(min_length=1, max_length=100)]
