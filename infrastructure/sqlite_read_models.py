"""The read models in SQLite, beside the events: each window and its tracking in one
transaction, which claims the window first (its first command is a write, so it holds
SQLite's write lock from the start and reads nothing stale)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from eventsourcing.sqlite import SQLiteCursor, SQLiteDatastore, SQLiteTrackingRecorder

from application.read_models.rows import DeadLetter, DocumentRow, HistoryEntry, RunRow
from application.read_models.store import (
    RUNS,
    ReadModelStore,
    StaleWindowError,
    Window,
    WindowWrite,
)

RUN_COLUMNS = (
    "principal", "kind", "language", "status", "calls", "previewed", "committed",
    "confirmed_by", "error", "created_at", "decided_at", "position",
)  # fmt: skip


class SQLiteReadModelStore(SQLiteTrackingRecorder, ReadModelStore):
    def __init__(self, datastore: SQLiteDatastore, prefix: str = "rm_") -> None:
        self.prefix = prefix  # the base constructor reads it, to name the tables
        super().__init__(datastore)

    def construct_create_table_statements(self) -> list[str]:
        p = self.prefix
        return [
            *super().construct_create_table_statements(),
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
            # The entries of the histories, a stream's by version.
            f"CREATE TABLE IF NOT EXISTS {p}histories (projection TEXT, stream TEXT, "
            "version INTEGER, position INTEGER, body TEXT NOT NULL, run_id TEXT, "
            "PRIMARY KEY (projection, stream, version))",
        ]

    # Writes: the windows claimed, then their rows, in one transaction.

    def write(self, writes: Sequence[WindowWrite]) -> None:
        with self.datastore.transaction(commit=True) as c:
            for write in sorted(writes, key=lambda w: w.window.name):
                _claim(c, write.window)
            for write in writes:
                self._write_rows(c, write)

    def _write_rows(self, c: SQLiteCursor, write: WindowWrite) -> None:
        if write.entries:
            c.executemany(
                f"INSERT INTO {self.prefix}histories VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (e.projection, e.stream, e.version, e.position, e.body, e.run_id)
                    for e in write.entries
                ],
            )
        if write.links:
            c.executemany(
                f"UPDATE {self.prefix}histories SET run_id = ? "
                "WHERE projection = ? AND stream = ? AND version = ?",
                [(link.run_id, link.projection, link.stream, link.version) for link in write.links],
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

    def history(
        self, projection: str, stream: str, limit: int, before_version: int | None = None
    ) -> list[HistoryEntry]:
        older = "" if before_version is None else "AND version < ? "
        rows = self._select(
            f"SELECT * FROM {self.prefix}histories WHERE projection = ? AND stream = ? "
            f"{older}ORDER BY version DESC LIMIT ?",
            [projection, stream, *([] if before_version is None else [before_version]), limit],
        )
        return [_history_entry(r) for r in rows]

    def history_entries(self, projection: str) -> list[HistoryEntry]:
        rows = self._select(
            f"SELECT * FROM {self.prefix}histories WHERE projection = ? ORDER BY position",
            [projection],
        )
        return [_history_entry(r) for r in rows]

    def last_entries(self, projection: str, streams: Collection[str]) -> dict[str, HistoryEntry]:
        if not streams:
            return {}
        marks = ", ".join("?" * len(streams))
        rows = self._select(
            f"SELECT * FROM {self.prefix}histories h WHERE projection = ? "
            f"AND stream IN ({marks}) AND version = (SELECT MAX(version) FROM "
            f"{self.prefix}histories WHERE projection = h.projection AND stream = h.stream)",
            [projection, *streams],
        )
        return {r["stream"]: _history_entry(r) for r in rows}

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
        with self.datastore.transaction(commit=True) as c:
            c.execute("DELETE FROM tracking WHERE application_name = ?", (tracking_name,))
            for table, where, params in _rows_of(self.prefix, projection):
                c.execute(f"DELETE FROM {table}{where}", params)
            c.execute(f"DELETE FROM {self.prefix}dead_letters WHERE projection = ?", (projection,))

    def take_over(self, projection: str, source_prefix: str, source: str, tracking: str) -> int:
        mine, theirs = self.prefix, source_prefix
        tables = zip(_rows_of(mine, projection), _rows_of(theirs, projection), strict=True)
        with self.datastore.transaction(commit=True) as c:
            # The write lock first: no window of this projection applies meanwhile.
            c.execute("DELETE FROM tracking WHERE application_name = ?", (tracking,))
            c.execute("SELECT notification_id FROM tracking WHERE application_name = ?", (source,))
            row = c.fetchone()
            position = int(row[0]) if row else 0
            for (table, where, params), (their_table, _, _) in tables:
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


def _rows_of(prefix: str, projection: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """A projection's rows: the runs' table whole, or a domain projection's records and
    history entries (each table, the condition and its parameters)."""
    if projection == RUNS:
        return [(f"{prefix}{RUNS}", "", ())]
    mine = " WHERE projection = ?", (projection,)
    return [(f"{prefix}documents", *mine), (f"{prefix}histories", *mine)]


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


def _history_entry(r: Any) -> HistoryEntry:
    return HistoryEntry(
        r["projection"], r["stream"], r["version"], r["position"], r["body"], r["run_id"]
    )
