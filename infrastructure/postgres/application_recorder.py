"""Application recorder: the notification log, its readers and its subscriptions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import ApplicationRecorder, Notification, Subscription

from infrastructure.postgres import driver
from infrastructure.postgres.aggregate_recorder import AsyncpgAggregateRecorder
from infrastructure.postgres.subscription import AsyncpgSubscription


class AsyncpgApplicationRecorder(AsyncpgAggregateRecorder, ApplicationRecorder):
    """Events with notification ids that are assigned in commit order."""

    has_notifications = True

    @property
    def channel_name(self) -> str:
        return self.events_sql.channel

    def select_notifications(
        self,
        start: int | None,
        limit: int,
        stop: int | None = None,
        topics: Sequence[str] = (),
        *,
        inclusive_of_start: bool = True,
    ) -> Sequence[Notification]:
        op = self._select_notifications_op(start, limit, stop, topics, inclusive_of_start)
        return self.datastore.run(op)

    async def async_select_notifications(
        self,
        start: int | None,
        limit: int,
        stop: int | None = None,
        topics: Sequence[str] = (),
        *,
        inclusive_of_start: bool = True,
    ) -> Sequence[Notification]:
        op = self._select_notifications_op(start, limit, stop, topics, inclusive_of_start)
        return await self.datastore.arun(op)

    def max_notification_id(self) -> int | None:
        return self.datastore.run(self._max_notification_id)

    async def async_max_notification_id(self) -> int | None:
        return await self.datastore.arun(self._max_notification_id)

    async def _max_notification_id(self, conn: driver.Connection) -> int | None:
        value = await conn.fetchval(self.events_sql.max_notification_id())
        return None if value is None else int(value)

    def subscribe(
        self, gt: int | None = None, topics: Sequence[str] = ()
    ) -> Subscription[ApplicationRecorder]:
        return AsyncpgSubscription(recorder=self, gt=gt, topics=topics)

    def _select_notifications_op(
        self,
        start: int | None,
        limit: int,
        stop: int | None,
        topics: Sequence[str],
        inclusive_of_start: bool,
    ) -> driver.Operation[list[Notification]]:
        query = self.events_sql.select_notifications(
            start=start is not None,
            inclusive=inclusive_of_start,
            stop=stop is not None,
            topics=bool(topics),
        )
        params: list[Any] = [p for p in (start, stop) if p is not None]
        if topics:
            params.append(list(topics))
        params.append(limit)

        async def select(conn: driver.Connection) -> list[Notification]:
            rows = await conn.fetch(query, *params)
            return [Notification(r[1], r[2], r[3], r[4], r[0]) for r in rows]

        return select
