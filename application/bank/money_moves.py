"""The money a bank program moves, read from the events its preview would append.

One function, so that the inbox, the review page, `sluice proposals` and the MCP tools all
say the same thing: who pays, who is paid, how much, in which currency. A transfer is two
events (debit and credit) and one move; a deposit is money coming in (no payer), a
withdrawal money going out (no payee).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from domain.account import CURRENCY


class MoneyMove(BaseModel):
    """One movement of money, as a person deciding on it reads it."""

    model_config = ConfigDict(frozen=True)

    payer: str | None = Field(description="The account paying; null for a deposit.")
    payee: str | None = Field(description="The account paid; null for a withdrawal.")
    amount: str = Field(description="Two-place text, as all money on the wire.")
    currency: str


def money_moves(events: Iterable[Mapping[str, Any]]) -> list[MoneyMove]:
    """The moves of previewed events (as a preview shows them: account, type, data), in
    their order. Events that move no money (an account opened or closed) have none."""
    moves = []
    for event in events:
        data = event.get("data") or {}
        kind, account, amount = event.get("type"), event.get("account"), data.get("amount")
        if amount is None:
            continue
        if kind == "TransferDebited":
            payer, payee = account, data.get("counterparty")
        elif kind == "Deposited":
            payer, payee = None, account
        elif kind == "Withdrawn":
            payer, payee = account, None
        else:  # TransferCredited: the other half of a debit already counted
            continue
        moves.append(MoneyMove(payer=payer, payee=payee, amount=str(amount), currency=CURRENCY))
    return moves


def move_words(move: MoneyMove) -> str:
    """`alice pays bob 10.00 EUR`, `20.00 EUR paid into carla`, `5.00 EUR taken out of bob`."""
    money = f"{move.amount} {move.currency}"
    if move.payer and move.payee:
        return f"{move.payer} pays {move.payee} {money}"
    if move.payee:
        return f"{money} paid into {move.payee}"
    return f"{money} taken out of {move.payer}"
