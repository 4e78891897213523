"""Parameter types of the shop's use cases, with the message each refusal gives.

A sku, an order id and a customer id are each 1 to 32 lowercase letters, digits, - or _
(as an account id is); a quantity is a whole number from 1 to MAX_QUANTITY; a price or an
amount is positive with at most 2 decimal places (`domain.shop.money`); a supplier's note
is one line of at most NOTE_LENGTH characters.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated

from pydantic import AfterValidator, Field, WithJsonSchema

from application.field_rules import OwnableId
from application.money_types import MoneyRules
from domain.shop import money
from domain.shop.errors import InvalidPriceError

KEY_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,31}$"
KEY_RULE = "1 to 32 lowercase letters, digits, - or _"
MAX_QUANTITY = 10_000
NOTE_LENGTH = 280
NAME_LENGTH = 100
_KEY_RE = re.compile(KEY_PATTERN)


def key_problem(value: str, what: str) -> str | None:
    """Why `value` is no `what` (a sku, an order id, a customer id), quoted escaped; None
    when it is one."""
    if _KEY_RE.fullmatch(value):
        return None
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    return f"{shown} is not a {what} ({KEY_RULE})"


def _key(what: str) -> AfterValidator:
    def check(value: str) -> str:
        problem = key_problem(value, what)
        if problem:
            raise ValueError(problem)
        return value

    return AfterValidator(check)


_KEY_SCHEMA = WithJsonSchema({"type": "string", "pattern": KEY_PATTERN})

Sku = Annotated[str, _key("sku"), _KEY_SCHEMA]
OrderId = Annotated[str, _key("order id"), _KEY_SCHEMA]
# What a customer principal owns: `Owned` holds it to its own.
CustomerId = Annotated[str, _key("customer id"), _KEY_SCHEMA, OwnableId]
Quantity = Annotated[int, Field(ge=1, le=MAX_QUANTITY)]
Price = Annotated[Decimal, MoneyRules(money.price, InvalidPriceError, money.MAX_PRICE)]
OptionalPrice = Annotated[
    Decimal, MoneyRules(money.price, InvalidPriceError, money.MAX_PRICE, zero=True)
]
ProductName = Annotated[str, Field(min_length=1, max_length=NAME_LENGTH)]
Supplier = Annotated[str, _key("supplier id"), _KEY_SCHEMA]
Note = Annotated[str, Field(max_length=NOTE_LENGTH)]
