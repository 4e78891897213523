"""The per-minute caps in SQLite, in a table beside the events: one row per cap and key.

Each admission is one short write transaction (BEGIN IMMEDIATE takes SQLite's write lock
first, so two processes never both read a window and both add to it). It runs on a
connection of its own with `synchronous = NORMAL`: a count is not worth an fsync, and a
power cut that loses the last counts loses nothing else (the events' own connections
still sync every commit, and with it anything written before).
"""

from __future__ import annotations

import sqlite3
import struct
import threading
import time

from eventsourcing.persistence import OperationalError

from application.rate_counter import Clock, RateCounter
from application.rate_window import SLOTS, Window

TABLE = "rate_windows"
COUNTS = struct.Struct(f"<{SLOTS}I")
CREATE = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (counter TEXT NOT NULL, key TEXT NOT NULL, "
    "head INTEGER NOT NULL, counts BLOB NOT NULL, PRIMARY KEY (counter, key)) WITHOUT ROWID"
)
SELECT = f"SELECT head, counts FROM {TABLE} WHERE counter = ? AND key = ?"
UPSERT = (
    f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?) ON CONFLICT (counter, key) "
    "DO UPDATE SET head = excluded.head, counts = excluded.counts"
)


class SQLiteRateCounter(RateCounter):
    def __init__(
        self, database: str, name: str, clock: Clock | None = None, *, timeout: float = 5.0
    ) -> None:
        self.name = name
        # One host shares one SQLite file, and with it one wall clock.
        self.clock = clock or time.time
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(
                database, uri=True, timeout=timeout, isolation_level=None, check_same_thread=False
            )
            self._conn.execute("PRAGMA synchronous = NORMAL")
            self._conn.execute(CREATE)
        except sqlite3.Error as error:
            raise OperationalError(f"rate counter {name}: {error}") from error

    def admit(self, key: str, cap: int) -> float | None:
        with self._lock:
            try:
                return self._admit(key, cap)
            except sqlite3.Error as error:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise OperationalError(f"rate counter {self.name}: {error}") from error

    def _admit(self, key: str, cap: int) -> float | None:
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        # Read the clock under the lock, so admissions are stamped in the order they count.
        now = self.clock()
        row = conn.execute(SELECT, (self.name, key)).fetchone()
        if row is None:
            window = Window.empty(now)
        else:
            head, blob = row
            counts = COUNTS.unpack(blob) if len(blob) == COUNTS.size else ()
            window = Window.stored(head, counts, now)
        kept, wait = window.admit(now, cap)
        if wait is None:
            conn.execute(UPSERT, (self.name, key, kept.head, COUNTS.pack(*kept.counts)))
        conn.execute("COMMIT")
        return wait

    def close(self) -> None:
        with self._lock:
            self._conn.close()
