"""The read models in SQLite, beside the events: each window and its tracking in one
transaction, which claims the window first (its first statement is a write, so it holds
SQLite's write lock from the start and reads nothing stale)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from decimal import Decimal
from typing import Any

from eventsourcing.sqlite import SQLiteCursor, SQLiteDatastore, SQLiteTrackingRecorder

from application.read_models.rows import (
    BalanceRow,
    DeadLetter,
    DocumentRow,
    RunRow,
    StatementRow,
)
from application.read_models.store import (
    TABLED,
    ReadModelStore,
    StaleWindowError,
    Window,
    WindowWrite,
)

RUN_COLUMNS = (
    "principal", "kind", "language", "status", "calls", "previewed", "committed",
    "confirmed_by", "error", "created_at", "decided_at", "position",
)  # fmt: skip


def cents(value: Decimal) -> int:
    # Money is kept as integer cents: SQLite would turn a decimal into a float.
    return int(value * 100)


def euros(value: int) -> Decimal:
    return Decimal(value).scaleb(-2)


class SQLiteReadModelStore(SQLiteTrackingRecorder, ReadModelStore):
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
            "counterparty TEXT, memo TEXT, time TEXT, run_id TEXT, memo_by TEXT, "
            "PRIMARY KEY (aggregate_id, version))",
            f"CREATE TABLE IF NOT EXISTS {p}runs (run_id TEXT PRIMARY KEY, principal TEXT, "
            "kind TEXT, language TEXT, status TEXT, calls INTEGER, previewed INTEGER, "
            "committed INTEGER, confirmed_by TEXT, error TEXT, created_at TEXT, "
            "decided_at TEXT, position INTEGER)",
            # The inbox: pending runs, newest first.
            f"CREATE INDEX IF NOT EXISTS {p}runs_by_status ON {p}runs (status, position)",
            f"CREATE TABLE IF NOT EXISTS {p}dead_letters (projection TEXT, position INTEGER, "
            "error TEXT, recorded_at TEXT, PRIMARY KEY (projection, position))",
            # The records of the declared read models (text compares by code point: BINARY).
            f"CREATE TABLE IF NOT EXISTS {p}documents (projection TEXT, key TEXT, owner TEXT, "
            "body TEXT NOT NULL, PRIMARY KEY (projection, key))",
        ]

    def _create_table(self, c: SQLiteCursor) -> None:
        super()._create_table(c)
        # A statement table made before memos had their writer gets the column.
        c.execute(f"PRAGMA table_info({self.prefix}statement)")
        if "memo_by" not in {row[1] for row in c.fetchall()}:
            c.execute(f"ALTER TABLE {self.prefix}statement ADD COLUMN memo_by TEXT")

    # Writes: the windows claimed, then their rows, in one transaction.

    def write(self, writes: Sequence[WindowWrite]) -> None:
        with self.datastore.transaction(commit=True) as c:
            for write in sorted(writes, key=lambda w: w.window.name):
                _claim(c, write.window)
            for write in writes:
                self._write_rows(c, write)

    def _write_rows(self, c: SQLiteCursor, write: WindowWrite) -> None:
        if write.balances:
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
                    for ch in write.balances
                ],
            )
        if write.entries:
            c.executemany(
                f"INSERT INTO {self.prefix}statement VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                        e.memo_by,
                    )
                    for e in write.entries
                ],
            )
        if write.links:
            c.executemany(
                f"UPDATE {self.prefix}statement SET run_id = ? "
                "WHERE aggregate_id = ? AND version = ?",
                [(link.run_id, link.aggregate_id, link.version) for link in write.links],
            )
        if write.runs:
            updates = ", ".join(f"{col} = COALESCE(excluded.{col}, {col})" for col in RUN_COLUMNS)
            c.executemany(
                f"INSERT INTO {self.prefix}runs VALUES ({', '.join('?' * (1 + len(RUN_COLUMNS)))}) "
                f"ON CONFLICT (run_id) DO UPDATE SET {updates}",
                [(ch.run_id, *(getattr(ch, col) for col in RUN_COLUMNS)) for ch in write.runs],
            )
        for change in write.documents:  # in order: a later change of a key wins
            if change.body is None:
                c.execute(
                    f"DELETE FROM {self.prefix}documents WHERE projection = ? AND key = ?",
                    (change.projection, change.key),
                )
            else:
                c.execute(
                    f"INSERT INTO {self.prefix}documents VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (projection, key) DO UPDATE SET "
                    "owner = excluded.owner, body = excluded.body",
                    (change.projection, change.key, change.owner, change.body),
                )

    def record_dead_letter(self, letter: DeadLetter, window: Window) -> None:
        with self.datastore.transaction(commit=True) as c:
            _claim(c, window)
            c.execute(
                f"INSERT OR REPLACE INTO {self.prefix}dead_letters VALUES (?, ?, ?, ?)",
                (letter.projection, letter.position, letter.error, letter.recorded_at),
            )

    def dead_letters(self, projection: str | None = None) -> list[DeadLetter]:
        sql = f"SELECT * FROM {self.prefix}dead_letters"
        params: list[Any] = []
        if projection is not None:
            sql += " WHERE projection = ?"
            params = [projection]
        rows = self._select(sql + " ORDER BY position, projection", params)
        return [
            DeadLetter(r["projection"], r["position"], r["error"], r["recorded_at"]) for r in rows
        ]

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

    def statement(
        self, aggregate_id: str, limit: int, before_version: int | None = None
    ) -> list[StatementRow]:
        older = "" if before_version is None else "AND version < ? "
        rows = self._select(
            f"SELECT * FROM {self.prefix}statement WHERE aggregate_id = ? {older}"
            "ORDER BY version DESC LIMIT ?",
            [aggregate_id, *([] if before_version is None else [before_version]), limit],
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

    def runs_page(
        self, status: str | None, principal: str | None, before: int | None, limit: int
    ) -> list[RunRow]:
        wanted = {"status": status, "principal": principal}
        where = [f"{column} = ?" for column, value in wanted.items() if value is not None]
        params: list[Any] = [value for value in wanted.values() if value is not None]
        if before is not None:
            where.append("position < ?")
            params.append(before)
        sql = f"SELECT * FROM {self.prefix}runs"
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self._select(sql + " ORDER BY position DESC LIMIT ?", [*params, limit])
        return [RunRow(**{key: r[key] for key in ("run_id", *RUN_COLUMNS)}) for r in rows]

    def run_ids_starting(self, start: str, principal: str | None, limit: int) -> list[str]:
        # A range on the primary key: every id starting so sorts between `start` and it + "g".
        sql = f"SELECT run_id FROM {self.prefix}runs WHERE run_id >= ? AND run_id < ?"
        params: list[Any] = [start, start + "g"]
        if principal is not None:
            sql += " AND principal = ?"
            params.append(principal)
        return [r["run_id"] for r in self._select(sql + " LIMIT ?", [*params, limit])]

    def documents(
        self,
        projection: str,
        keys: Collection[str] | None = None,
        owners: Collection[str] | None = None,
    ) -> list[DocumentRow]:
        sql = f"SELECT * FROM {self.prefix}documents WHERE projection = ?"
        params: list[Any] = [projection]
        if keys is not None:
            sql += f" AND key IN ({', '.join('?' * len(keys))})"
            params += keys
        if owners is not None:
            sql += f" AND (owner IS NULL OR owner IN ({', '.join('?' * len(owners))}))"
            params += owners
        rows = self._select(sql + " ORDER BY key", params)
        return [DocumentRow(r["projection"], r["key"], r["owner"], r["body"]) for r in rows]

    def reset(self, projection: str, tracking_name: str) -> None:
        table, where, params = _rows_of(self.prefix, projection)
        with self.datastore.transaction(commit=True) as c:
            c.execute("DELETE FROM tracking WHERE application_name = ?", (tracking_name,))
            c.execute(f"DELETE FROM {table}{where}", params)
            c.execute(f"DELETE FROM {self.prefix}dead_letters WHERE projection = ?", (projection,))

    def take_over(self, projection: str, source_prefix: str, source: str, tracking: str) -> int:
        mine, theirs = self.prefix, source_prefix
        table, where, params = _rows_of(mine, projection)
        their_table, _, _ = _rows_of(theirs, projection)
        with self.datastore.transaction(commit=True) as c:
            # The write lock first: no window of this projection applies meanwhile.
            c.execute("DELETE FROM tracking WHERE application_name = ?", (tracking,))
            c.execute("SELECT notification_id FROM tracking WHERE application_name = ?", (source,))
            row = c.fetchone()
            position = int(row[0]) if row else 0
            c.execute(f"DELETE FROM {table}{where}", params)
            c.execute(f"INSERT INTO {table} SELECT * FROM {their_table}{where}", params)
            c.execute(f"DELETE FROM {mine}dead_letters WHERE projection = ?", (projection,))
            c.execute(
                f"INSERT INTO {mine}dead_letters SELECT * FROM {theirs}dead_letters "
                "WHERE projection = ?",
                (projection,),
            )
            if position:
                c.execute("INSERT INTO tracking VALUES (?, ?)", (tracking, position))
        return position

    def _select(self, sql: str, params: list[Any]) -> list[Any]:
        with self.datastore.transaction(commit=False) as c:
            c.execute(sql, params)
            rows: list[Any] = c.fetchall()
            return rows


def _rows_of(prefix: str, projection: str) -> tuple[str, str, tuple[str, ...]]:
    """A projection's rows: a table of the bank's whole, or a declared read model's records
    in the documents table (its table, the condition and its parameters)."""
    if projection in TABLED:
        return f"{prefix}{projection}", "", ()
    return f"{prefix}documents", " WHERE projection = ?", (projection,)


def _claim(c: SQLiteCursor, window: Window) -> None:
    """Move the window's tracking from `after` to `upto`, or raise StaleWindowError."""
    if window.after == 0:
        c.execute("INSERT OR IGNORE INTO tracking VALUES (?, ?)", (window.name, window.upto))
    else:
        c.execute(
            "UPDATE tracking SET notification_id = ? "
            "WHERE application_name = ? AND notification_id = ?",
            (window.upto, window.name, window.after),
        )
    if c.sqlite_cursor.rowcount != 1:
        c.execute("SELECT notification_id FROM tracking WHERE application_name = ?", (window.name,))
        row = c.fetchone()
        raise StaleWindowError(window, int(row[0]) if row else None)


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
        memo_by=r["memo_by"],
    )
