"""eventsourcing.sqlite with the read-set guard (PERSISTENCE_MODULE=infrastructure.sqlite)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing import sqlite
from eventsourcing.persistence import StoredEvent
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor, SQLiteProcessRecorder

from application.rate_counter import Clock, MemoryRateCounter, RateCounter
from infrastructure import read_set
from infrastructure.sqlite_rate import SQLiteRateCounter
from infrastructure.sqlite_read_models import SQLiteReadModelStore


class _GuardMixin(SQLiteApplicationRecorder):
    """The read-set check, inside the transaction that inserts the events."""

    def _insert_events(
        self,
        c: SQLiteCursor,
        stored_events: Sequence[StoredEvent],
        *,
        read_versions: read_set.ReadVersions | None = None,
        **kwargs: Any,
    ) -> Sequence[int] | None:
        # Inserting first takes SQLite's write lock, so the versions read below cannot
        # change before this transaction commits.
        notification_ids = super()._insert_events(c, stored_events, **kwargs)
        if read_versions:
            read_set.check(read_versions, self._current_versions(c, list(read_versions)))
        return notification_ids

    def _current_versions(self, c: SQLiteCursor, ids: Sequence[UUID]) -> dict[UUID, int | None]:
        current: dict[UUID, int | None] = {}
        for originator_id in ids:
            c.execute(
                f"SELECT MAX(originator_version) FROM {self.events_table_name} "
                "WHERE originator_id = ?",
                (originator_id.hex,),
            )
            current[originator_id] = c.fetchone()[0]
        return current


class GuardedSQLiteApplicationRecorder(_GuardMixin):
    pass


class GuardedSQLiteProcessRecorder(_GuardMixin, SQLiteProcessRecorder):
    pass


# Only one factory class may live in a persistence module's namespace, hence `sqlite.`.
class Factory(sqlite.SQLiteFactory):
    application_recorder_class = GuardedSQLiteApplicationRecorder
    process_recorder_class = GuardedSQLiteProcessRecorder


def make_read_model_store(factory: Factory, prefix: str) -> SQLiteReadModelStore:
    """The read models, in tables beside the events (one set per table prefix)."""
    view = SQLiteReadModelStore(factory.datastore, prefix)
    view.create_table()
    return view


def make_rate_counter(factory: Factory, name: str, clock: Clock | None = None) -> RateCounter:
    """The counter `name`, in a table beside the events (one row per key)."""
    pool = factory.datastore.pool
    if pool.is_sqlite_memory_mode:  # a database of this process only
        return MemoryRateCounter(name, clock)
    return SQLiteRateCounter(pool.db_name, name, clock, timeout=pool.lock_timeout or 5.0)
