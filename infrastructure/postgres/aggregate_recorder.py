"""Aggregate recorder: stored events by aggregate, and the read-set guarded insert."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import AggregateRecorder, DataError, StoredEvent, Tracking

from infrastructure.postgres import driver
from infrastructure.postgres import rows as rows_as
from infrastructure.postgres.datastore import AsyncpgDatastore
from infrastructure.postgres.recorder import AsyncpgRecorder, DdlStep
from infrastructure.postgres.sql import EventsSql, check_identifier

UNDEFINED_FUNCTION = "42883"

InsertArgs = tuple[object, ...]
ReadVersions = Mapping[UUID, int] | Mapping[str, int] | Mapping[UUID | str, int]


class AsyncpgAggregateRecorder(AsyncpgRecorder, AggregateRecorder):
    """Stored events in one table, each insert one round trip to one function.

    `insert_events(events, read_versions={id: version})` also checks, inside
    the insert's own transaction and after the insert lock, that no aggregate
    named in `read_versions` has an event above the version the caller read;
    if one has, it raises ReadSetConflictError and writes nothing.
    """

    has_notifications = False

    def __init__(self, datastore: AsyncpgDatastore, *, events_table_name: str = "stored_events"):
        super().__init__(datastore)
        check_identifier(events_table_name)
        self.events_table_name = events_table_name
        id_type = datastore.settings.originator_id_type
        self.events_sql = EventsSql(
            schema=datastore.schema,
            table=events_table_name,
            id_type=id_type,
            notifications=self.has_notifications,
            tracking_table=self._tracking_table_for_inserts(),
        )
        self._db_id: Callable[[UUID | str], object] = str if id_type == "text" else _same
        self._insert_call = self.events_sql.insert_call()

    def _tracking_table_for_inserts(self) -> str | None:
        return None

    def _stored_id(self, originator_id: UUID | str) -> UUID | str:
        """The id as the column gives it back: what reading it would return."""
        if self.events_sql.id_type == "text":
            return str(originator_id)
        if type(originator_id) is UUID:
            return originator_id
        return UUID(str(originator_id))

    def ddl(self) -> list[DdlStep]:
        sql = self.events_sql
        steps = [*super().ddl(), DdlStep("relation", sql.table, sql.create_table())]
        if self.has_notifications:
            steps.append(DdlStep("relation", sql.index_name, sql.create_index()))
        steps.append(DdlStep("function", sql.function_name, sql.create_insert_function()))
        return steps

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        args = self._insert_args(stored_events, kwargs)
        if args is None:
            return None
        ids: list[int] = self.datastore.run(self._insert_op(args), idempotent=False)
        return ids if self.has_notifications and stored_events else None

    async def async_insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        args = self._insert_args(stored_events, kwargs)
        if args is None:
            return None
        ids: list[int] = await self.datastore.arun(self._insert_op(args), idempotent=False)
        return ids if self.has_notifications and stored_events else None

    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        return self.datastore.run(self._select_events_op(originator_id, gt, lte, desc, limit))

    async def async_select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        return await self.datastore.arun(
            self._select_events_op(originator_id, gt, lte, desc, limit)
        )

    def _select_events_op(
        self,
        originator_id: UUID | str,
        gt: int | None,
        lte: int | None,
        desc: bool,
        limit: int | None,
    ) -> driver.Operation[list[StoredEvent]]:
        query = self.events_sql.select_events(
            gt=gt is not None, lte=lte is not None, desc=desc, limit=limit is not None
        )
        params = [self._db_id(originator_id)]
        params.extend(p for p in (gt, lte, limit) if p is not None)
        stored_id = self._stored_id(originator_id)

        async def select(conn: driver.Connection) -> list[StoredEvent]:
            rows = await conn.fetch(query, *params)
            return [rows_as.stored_event(stored_id, r) for r in rows]

        return select

    def _insert_args(
        self, stored_events: Sequence[StoredEvent], kwargs: Mapping[str, Any]
    ) -> InsertArgs | None:
        tracking: Tracking | None = kwargs.get("tracking")
        tracked = self.events_sql.tracking_table is not None
        if not stored_events and (tracking is None or not tracked):
            return None
        db_id = self._db_id
        read_ids, read_versions = self._read_set(kwargs.get("read_versions"))
        args: InsertArgs = (
            [db_id(e.originator_id) for e in stored_events],
            [e.originator_version for e in stored_events],
            [e.topic for e in stored_events],
            [e.state for e in stored_events],
            read_ids,
            read_versions,
        )
        if tracked:
            if tracking is None:
                return (*args, None, None)
            return (*args, tracking.application_name, tracking.notification_id)
        return args

    def _read_set(self, read_versions: ReadVersions | None) -> tuple[list[object], list[int]]:
        if not read_versions:
            return [], []
        ids: list[object] = []
        versions: list[int] = []
        for originator_id, version in read_versions.items():
            if not isinstance(version, int) or isinstance(version, bool):
                msg = f"read_versions[{originator_id}] must be an int version, not {version!r}"
                raise DataError(msg)
            ids.append(self._db_id(originator_id))
            versions.append(version)
        return ids, versions

    def _insert_op(self, args: InsertArgs) -> driver.Operation[list[int]]:
        async def insert(conn: driver.Connection) -> list[int]:
            try:
                rows = await conn.fetch(self._insert_call, *args)
            except driver.PostgresError as exc:
                if driver.sqlstate(exc) != UNDEFINED_FUNCTION:
                    raise
                # The tables were made elsewhere (CREATE_TABLE=false, or by
                # eventsourcing.postgres): add the function and try again.
                await self._run_ddl(conn, [step for step in self.ddl() if step.kind == "function"])
                rows = await conn.fetch(self._insert_call, *args)
            if not self.has_notifications:
                return []
            return [row[0] for row in rows]

        return insert


def _same(originator_id: UUID | str) -> object:
    return originator_id
