"""The read models in SQLite, beside the events: each batch and its tracking in one transaction."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from decimal import Decimal
from typing import Any

from eventsourcing.persistence import Tracking
from eventsourcing.sqlite import SQLiteDatastore, SQLiteTrackingRecorder

from application.read_models.rows import (
    BalanceChange,
    BalanceRow,
    RunChange,
    RunLink,
    RunRow,
    StatementRow,
)
from application.read_models.view import ReadModelView

RUN_COLUMNS = (
    "principal", "kind", "language", "status", "calls", "previewed", "committed",
    "confirmed_by", "error", "created_at", "decided_at", "position",
)  # fmt: skip


def cents(value: Decimal) -> int:
    # Money is kept as integer cents: SQLite would turn a decimal into a float.
    return int(value * 100)


def euros(value: int) -> Decimal:
    return Decimal(value).scaleb(-2)


class SQLiteReadModelView(SQLiteTrackingRecorder, ReadModelView):
    def __init__(self, datastore: SQLiteDatastore, prefix: str = "rm_") -> None:
        self.prefix = prefix  # the base constructor reads it, to name the tables
        super().__init__(datastore)

    def construct_create_table_statements(self) -> list[str]:
        p = self.prefix
        return [
            *super().construct_create_table_statements(),
            f"CREATE TABLE IF NOT EXISTS {p}balances (aggregate_id TEXT PRIMARY KEY, "
            "account TEXT, owner TEXT, balance_cents INTEGER NOT NULL, status TEXT, "
            "version INTEGER NOT NULL)",
            f"CREATE TABLE IF NOT EXISTS {p}statement (aggregate_id TEXT, version INTEGER, "
            "position INTEGER, kind TEXT, amount_cents INTEGER, balance_cents INTEGER, "
            "counterparty TEXT, memo TEXT, time TEXT, run_id TEXT, "
            "PRIMARY KEY (aggregate_id, version))",
            f"CREATE TABLE IF NOT EXISTS {p}runs (run_id TEXT PRIMARY KEY, principal TEXT, "
            "kind TEXT, language TEXT, status TEXT, calls INTEGER, previewed INTEGER, "
            "committed INTEGER, confirmed_by TEXT, error TEXT, created_at TEXT, "
            "decided_at TEXT, position INTEGER)",
        ]

    # Writes: rows and tracking in one transaction; a repeated batch fails on its tracking.

    def apply_balances(self, changes: Sequence[BalanceChange], tracking: Tracking) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.executemany(
                f"INSERT INTO {self.prefix}balances VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (aggregate_id) DO UPDATE SET "
                "account = COALESCE(excluded.account, account), "
                "owner = COALESCE(excluded.owner, owner), "
                "balance_cents = balance_cents + excluded.balance_cents, "
                "status = COALESCE(excluded.status, status), "
                "version = MAX(version, excluded.version)",
                [
                    (ch.aggregate_id, ch.account, ch.owner, cents(ch.delta), ch.status, ch.version)
                    for ch in changes
                ],
            )
            self._insert_tracking(c, tracking)

    def apply_statement(
        self, entries: Sequence[StatementRow], links: Sequence[RunLink], tracking: Tracking
    ) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.executemany(
                f"INSERT INTO {self.prefix}statement VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        e.aggregate_id,
                        e.version,
                        e.position,
                        e.kind,
                        cents(e.amount),
                        cents(e.balance),
                        e.counterparty,
                        e.memo,
                        e.time,
                        e.run_id,
                    )
                    for e in entries
                ],
            )
            c.executemany(
                f"UPDATE {self.prefix}statement SET run_id = ? "
                "WHERE aggregate_id = ? AND version = ?",
                [(link.run_id, link.aggregate_id, link.version) for link in links],
            )
            self._insert_tracking(c, tracking)

    def apply_runs(self, changes: Sequence[RunChange], tracking: Tracking) -> None:
        updates = ", ".join(f"{col} = COALESCE(excluded.{col}, {col})" for col in RUN_COLUMNS)
        with self.datastore.transaction(commit=True) as c:
            c.executemany(
                f"INSERT INTO {self.prefix}runs VALUES ({', '.join('?' * (1 + len(RUN_COLUMNS)))}) "
                f"ON CONFLICT (run_id) DO UPDATE SET {updates}",
                [(ch.run_id, *(getattr(ch, col) for col in RUN_COLUMNS)) for ch in changes],
            )
            self._insert_tracking(c, tracking)

    # Reads.

    def balances(self, accounts: Collection[str] | None = None) -> list[BalanceRow]:
        sql = f"SELECT * FROM {self.prefix}balances"
        params: list[Any] = []
        if accounts is not None:
            sql += f" WHERE account IN ({', '.join('?' * len(accounts))})"
            params = list(accounts)
        rows = self._select(sql + " ORDER BY account", params)
        return [
            BalanceRow(
                r["account"], r["owner"], euros(r["balance_cents"]), r["status"], r["version"]
            )
            for r in rows
        ]

    def statement(self, aggregate_id: str, limit: int) -> list[StatementRow]:
        rows = self._select(
            f"SELECT * FROM {self.prefix}statement WHERE aggregate_id = ? "
            "ORDER BY version DESC LIMIT ?",
            [aggregate_id, limit],
        )
        return [_statement_row(r) for r in rows]

    def statement_entries(self) -> list[StatementRow]:
        rows = self._select(f"SELECT * FROM {self.prefix}statement ORDER BY position", [])
        return [_statement_row(r) for r in rows]

    def last_balances(self, aggregate_ids: Collection[str]) -> dict[str, Decimal]:
        if not aggregate_ids:
            return {}
        marks = ", ".join("?" * len(aggregate_ids))
        rows = self._select(
            f"SELECT aggregate_id, balance_cents FROM {self.prefix}statement s "
            f"WHERE aggregate_id IN ({marks}) AND version = (SELECT MAX(version) FROM "
            f"{self.prefix}statement WHERE aggregate_id = s.aggregate_id)",
            list(aggregate_ids),
        )
        return {r["aggregate_id"]: euros(r["balance_cents"]) for r in rows}

    def runs(self, run_ids: Collection[str] | None = None) -> list[RunRow]:
        sql = f"SELECT * FROM {self.prefix}runs"
        params: list[Any] = []
        if run_ids is not None:
            sql += f" WHERE run_id IN ({', '.join('?' * len(run_ids))})"
            params = list(run_ids)
        rows = self._select(sql + " ORDER BY position", params)
        return [RunRow(**{key: r[key] for key in ("run_id", *RUN_COLUMNS)}) for r in rows]

    def reset(self, projection: str, tracking_name: str) -> None:
        with self.datastore.transaction(commit=True) as c:
            c.execute(f"DELETE FROM {self.prefix}{projection}")
            c.execute("DELETE FROM tracking WHERE application_name = ?", (tracking_name,))

    def _select(self, sql: str, params: list[Any]) -> list[Any]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(sql, params)
            rows: list[Any] = c.fetchall()
            return rows


def _statement_row(r: Any) -> StatementRow:
    return StatementRow(
        aggregate_id=r["aggregate_id"],
        position=r["position"],
        version=r["version"],
        kind=r["kind"],
        amount=euros(r["amount_cents"]),
        balance=euros(r["balance_cents"]),
        counterparty=r["counterparty"],
        memo=r["memo"],
        time=r["time"],
        run_id=r["run_id"],
    )
