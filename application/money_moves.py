"""The money a program moves, as a person deciding on it reads it: who pays, who is paid, how
much, in which currency.

Each domain reads its own events (`Domain.money_moves`); the inbox, the review page,
`sluice proposals` and the MCP tools all show what that reading says, in the same words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class MoneyMove(BaseModel):
    """One movement of money, as a person deciding on it reads it."""

    model_config = ConfigDict(frozen=True)

    payer: str | None = Field(
        description="Who pays, named as the domain names its parties; null for money that "
        "comes in from outside."
    )
    payee: str | None = Field(description="Who is paid; null for money that goes out.")
    amount: str = Field(description="Two-place text, as all money on the wire.")
    currency: str


# A domain's reading of previewed events (as a preview shows them: account, type, data).
MoneyReader = Callable[[Iterable[Mapping[str, Any]]], list[MoneyMove]]


def no_money_moves(events: Iterable[Mapping[str, Any]]) -> list[MoneyMove]:
    """The reading of a domain that moves no money."""
    del events
    return []


def move_words(move: MoneyMove) -> str:
    """`alice pays bob 10.00 EUR`, `20.00 EUR paid into carla`, `5.00 EUR taken out of bob`."""
    money = f"{move.amount} {move.currency}"
    if move.payer and move.payee:
        return f"{move.payer} pays {move.payee} {money}"
    if move.payee:
        return f"{money} paid into {move.payee}"
    return f"{money} taken out of {move.payer}"
