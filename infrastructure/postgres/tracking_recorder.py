"""Tracking recorder: how far each upstream application has been processed."""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import IntegrityError, Tracking, TrackingRecorder

from infrastructure.postgres import driver
from infrastructure.postgres.datastore import AsyncpgDatastore
from infrastructure.postgres.recorder import AsyncpgRecorder, DdlStep
from infrastructure.postgres.sql import TrackingSql, check_identifier


class AsyncpgTrackingRecorder(AsyncpgRecorder, TrackingRecorder):
    """One row per upstream application (the single-row layout)."""

    def __init__(
        self,
        datastore: AsyncpgDatastore,
        *,
        tracking_table_name: str = "notification_tracking",
        **kwargs: Any,
    ) -> None:
        check_identifier(tracking_table_name)
        self.tracking_table_name = tracking_table_name
        self.tracking_sql = TrackingSql(datastore.schema, tracking_table_name)
        super().__init__(datastore, **kwargs)

    def ddl(self) -> list[DdlStep]:
        sql = self.tracking_sql
        return [
            DdlStep("relation", sql.table, sql.create_table()),
            DdlStep("always", sql.table, sql.mark_single_row()),
            *super().ddl(),
        ]

    def insert_tracking(self, tracking: Tracking) -> None:
        self.datastore.run(self._insert_tracking_op(tracking), idempotent=False)

    async def async_insert_tracking(self, tracking: Tracking) -> None:
        await self.datastore.arun(self._insert_tracking_op(tracking), idempotent=False)

    def max_tracking_id(self, application_name: str) -> int | None:
        return self.datastore.run(self._max_tracking_id_op(application_name))

    async def async_max_tracking_id(self, application_name: str) -> int | None:
        return await self.datastore.arun(self._max_tracking_id_op(application_name))

    def _insert_tracking_op(self, tracking: Tracking) -> driver.Operation[None]:
        query = self.tracking_sql.insert_tracking()

        async def insert(conn: driver.Connection) -> None:
            rows = await conn.fetch(query, tracking.application_name, tracking.notification_id)
            if not rows:
                msg = (
                    "Failed to record tracking for "
                    f"{tracking.application_name} {tracking.notification_id}"
                )
                raise IntegrityError(msg)

        return insert

    def _max_tracking_id_op(self, application_name: str) -> driver.Operation[int | None]:
        query = self.tracking_sql.max_tracking_id()

        async def select(conn: driver.Connection) -> int | None:
            value = await conn.fetchval(query, application_name)
            return None if value is None else int(value)

        return select
