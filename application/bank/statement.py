"""Turn an account's events into statement entries with a running balance."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from application.bank.results import StatementEntry, memo_writer
from domain.account import Account
from domain.money import ZERO

# Each account event's statement kind and the sign of its amount on the balance: one table
# for the statement here, the read models' projections and the books' check.
SIGNS: dict[type[Any], tuple[str, int]] = {
    Account.Opened: ("opened", 0),
    Account.Deposited: ("deposit", 1),
    Account.Withdrawn: ("withdrawal", -1),
    Account.TransferDebited: ("transfer_out", -1),
    Account.TransferCredited: ("transfer_in", 1),
    Account.Closed: ("closed", 0),
}


def entries(account: str, history: Sequence[Any]) -> list[StatementEntry]:
    """Oldest first; each entry carries the balance after it."""
    balance = ZERO
    result = []
    for event in history:
        balance += _change(event)
        result.append(_entry(account, event, balance))
    return result


def latest_entries(account: str, history: Sequence[Any], balance: Decimal) -> list[StatementEntry]:
    """Newest first: the entries of the last events of an account whose balance after them
    is `balance`, each balance found by walking back from it (no need for older events)."""
    result = []
    for event in reversed(history):
        result.append(_entry(account, event, balance))
        balance -= _change(event)
    return result


def _change(event: Any) -> Decimal:
    sign = SIGNS[type(event)][1]
    change: Decimal = sign * getattr(event, "amount", ZERO)
    return change


def _entry(account: str, event: Any, balance: Decimal) -> StatementEntry:
    """The entry of one event, with the account's balance after it."""
    kind = SIGNS[type(event)][0]
    counterparty = getattr(event, "counterparty", None)
    memo = getattr(event, "memo", "")
    return StatementEntry(
        version=event.originator_version,
        kind=kind,  # type: ignore[arg-type]
        amount=_change(event),
        balance=balance,
        counterparty=counterparty,
        memo=memo,
        memo_by=memo_writer(kind, account, counterparty, getattr(event, "memo_by", None))
        if memo
        else None,
        timestamp=event.timestamp.isoformat(),
    )
