"""The bank's records as the audit follows them: accounts, by name (`sluice audit account`),
each told by its balance and status at a point of the log."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from application.audited import AuditedRecord
from domain.account import Account, account_id
from domain.errors import AccountNotFoundError


def _state(account: Any) -> dict[str, Any]:
    assert isinstance(account, Account)
    return {
        "owner": account.owner,
        "balance": f"{account.balance:f}",
        "status": "closed" if account.closed else "open",
    }


def _told(state: Mapping[str, Any]) -> str:
    return f"balance {state['balance']}, {state['status']}, owner {state['owner']}"


def _row(item: Mapping[str, Any]) -> tuple[Any, ...]:
    data = item["data"]
    return (
        item["type"].split(".")[-1].replace("Transfer", ""),
        data.get("amount", ""),
        data.get("counterparty", "") or "",
        data.get("memo", ""),
    )


ACCOUNTS = AuditedRecord(
    kind="account",
    aggregate=Account,
    key="account",
    id_for=account_id,
    not_found=AccountNotFoundError,
    state=_state,
    told=_told,
    columns=("event", "amount", "with", "memo"),
    row=_row,
)
