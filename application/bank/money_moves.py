"""The money a bank program moves, read from the events its preview would append: the
bank's `Domain.money_moves`.

A transfer is two events (debit and credit) and one move; a deposit is money coming in (no
payer), a withdrawal money going out (no payee). `MoneyMove` and `move_words` are the
generic ones of application/money_moves.py, named here too for the modules that still take
them from the bank.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from application.money_moves import MoneyMove, move_words
from domain.account import CURRENCY


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


__all__ = ["MoneyMove", "money_moves", "move_words"]
