"""Parameter types of the bank use cases, with the message each refusal gives.

The bounds, one place each: an account id matches ACCOUNT_PATTERN (1 to 32 lowercase
letters, digits, - or _, starting with a letter or digit); an amount is positive, has at
most 2 decimal places and is at most `money.MAX_AMOUNT`; a memo is text of at most
MEMO_LENGTH characters, an owner of 1 to OWNER_LENGTH. Every text argument of every use
case is one line of printable text (`UseCase` checks it; `domain.text` says what that is).
The JSON Schemas of the sheets and plans state each bound.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated

from pydantic import AfterValidator, Field, WithJsonSchema

from application.field_rules import AccountId
from application.money_types import MoneyRules
from domain import money
from domain.errors import InvalidAmountError

ACCOUNT_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,31}$"
ACCOUNT_RULE = "1 to 32 lowercase letters, digits, - or _"
MEMO_LENGTH = 140
OWNER_LENGTH = 100
_ACCOUNT_RE = re.compile(ACCOUNT_PATTERN)


def account_problem(value: object, called: str = "an account id") -> str | None:
    """Why `value` is not an account id (or an id of the same form, `called` as a domain
    calls it), quoted escaped; None when it is one."""
    if isinstance(value, str) and _ACCOUNT_RE.fullmatch(value):
        return None
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    return f"{shown} is not {called} ({ACCOUNT_RULE})"


def _account_name(value: str) -> str:
    problem = account_problem(value)
    if problem:
        raise ValueError(problem)
    return value


AccountName = Annotated[
    str,
    AfterValidator(_account_name),
    WithJsonSchema({"type": "string", "pattern": ACCOUNT_PATTERN}),
    AccountId,
]
Amount = Annotated[Decimal, MoneyRules(money.amount, InvalidAmountError, money.MAX_AMOUNT)]
OptionalAmount = Annotated[
    Decimal, MoneyRules(money.amount, InvalidAmountError, money.MAX_AMOUNT, zero=True)
]
Memo = Annotated[str, Field(max_length=MEMO_LENGTH)]
Owner = Annotated[str, Field(min_length=1, max_length=OWNER_LENGTH)]
