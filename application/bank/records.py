"""The bank's read-model records, in the store's generic shapes: an account's balance is a
keyed record of the balances projection (keyed by the account's aggregate id, which
`account_id` derives from its name, so a read by name is a read by key), and each movement
of an account is an entry of the statement projection's history of that account. Their
JSON bodies, and the reads of them from a read-model store."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from operator import attrgetter
from typing import Any

from application.read_models.rows import DocumentChange, DocumentRow, HistoryEntry
from application.read_models.store import AsyncDocuments, ReadModelStore
from domain.account import account_id
from domain.money import CENT

BALANCES, STATEMENT = "balances", "statement"
# The read models hold money below 10^18 (as Postgres's numeric(20, 2) did): a larger sum
# is refused, and its event set aside as a dead letter.
LIMIT = Decimal(10) ** 18
# Bodies are written compact, and read with the decoder's own scan: `json.loads` would cost
# twice as much on every row served.
_COMPACT = (",", ":")
_decode = json.JSONDecoder().raw_decode
_ACCOUNT = attrgetter("account")


@dataclass(frozen=True)
class BalanceRow:
    account: str
    owner: str
    balance: Decimal
    status: str
    version: int


@dataclass(frozen=True)
class StatementRow:
    aggregate_id: str
    position: int
    version: int
    kind: str
    amount: Decimal
    balance: Decimal
    counterparty: str | None
    memo: str
    time: str
    run_id: str | None = None
    memo_by: str | None = None  # the memo's writer when not its side's default


def money(value: Decimal) -> str:
    """A sum as the read models keep it: exact text, in cents."""
    cents = value.quantize(CENT)
    if abs(cents) >= LIMIT:
        raise ValueError(f"{value} is beyond what the read models hold")
    return str(cents)


def balance_change(key: str, row: BalanceRow) -> DocumentChange:
    """The record of an account's balance (the account is the owned id it belongs to)."""
    body = {
        "account": row.account,
        "owner": row.owner,
        "balance": money(row.balance),
        "status": row.status,
        "version": row.version,
    }
    return DocumentChange(BALANCES, key, row.account or None, json.dumps(body, separators=_COMPACT))


def balance_row(record: DocumentRow) -> BalanceRow:
    body: dict[str, Any] = _decode(record.body)[0]
    return BalanceRow(
        body["account"], body["owner"], Decimal(body["balance"]), body["status"], body["version"]
    )


def statement_history(row: StatementRow) -> HistoryEntry:
    """The entry of one movement in its account's history."""
    body = {
        "kind": row.kind,
        "amount": money(row.amount),
        "balance": money(row.balance),
        "counterparty": row.counterparty,
        "memo": row.memo,
        "time": row.time,
        "memo_by": row.memo_by,
    }
    text = json.dumps(body, separators=_COMPACT)
    return HistoryEntry(STATEMENT, row.aggregate_id, row.version, row.position, text, row.run_id)


def statement_row(entry: HistoryEntry) -> StatementRow:
    body: dict[str, Any] = _decode(entry.body)[0]
    return StatementRow(  # by position: a keyword call costs half as much again, every row
        entry.stream,
        entry.position,
        entry.version,
        body["kind"],
        Decimal(body["amount"]),
        Decimal(body["balance"]),
        body["counterparty"],
        body["memo"],
        body["time"],
        entry.run_id,
        body["memo_by"],
    )


def balances(store: ReadModelStore, accounts: Collection[str] | None = None) -> list[BalanceRow]:
    """In account order: all of them, or those of the accounts named."""
    records = store.documents(BALANCES, _keys(accounts))
    return _in_account_order(map(balance_row, records), accounts)


async def async_balances(
    store: AsyncDocuments, accounts: Collection[str] | None = None
) -> list[BalanceRow]:
    """As `balances`, on the caller's event loop."""
    records = await store.async_documents(BALANCES, _keys(accounts))
    return _in_account_order(map(balance_row, records), accounts)


def balance_records(store: ReadModelStore, keys: Collection[str]) -> dict[str, BalanceRow]:
    """The balances of these accounts, by aggregate id (hex), where they have one."""
    return {r.key: balance_row(r) for r in store.documents(BALANCES, keys)} if keys else {}


def statement(
    store: ReadModelStore, account: str, limit: int, before_version: int | None = None
) -> list[StatementRow]:
    """An account's movements, newest first; only those older than `before_version`."""
    entries = store.history(STATEMENT, account_key(account), limit, before_version)
    return [statement_row(entry) for entry in entries]


def statement_entries(store: ReadModelStore) -> list[StatementRow]:
    """Every movement of every account, in log order."""
    return [statement_row(entry) for entry in store.history_entries(STATEMENT)]


def last_balances(store: ReadModelStore, aggregate_ids: Collection[str]) -> dict[str, Decimal]:
    """The balance after each account's latest movement, by aggregate id (hex)."""
    latest = store.last_entries(STATEMENT, aggregate_ids)
    return {key: statement_row(entry).balance for key, entry in latest.items()}


@lru_cache(maxsize=4096)
def account_key(account: str) -> str:
    """The key of an account's records: its aggregate id (hex), remembered (a uuid5 costs
    more than the rest of a served balance's decoding)."""
    return account_id(account).hex


def _keys(accounts: Collection[str] | None) -> list[str] | None:
    return None if accounts is None else [account_key(account) for account in accounts]


def _in_account_order(
    rows: Iterable[BalanceRow], accounts: Collection[str] | None
) -> list[BalanceRow]:
    """By name in code-point order (str order); those named only (a record whose account
    was never opened has no name)."""
    if accounts is not None:
        rows = filter(lambda row: row.account in accounts, rows)
    return sorted(rows, key=_ACCOUNT)
