"""Application recorder: the notification log, its readers and its subscriptions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import ApplicationRecorder, Notification, Subscription

from infrastructure.postgres import driver
from infrastructure.postgres import rows as rows_as
from infrastructure.postgres.aggregate_recorder import AsyncpgAggregateRecorder
from infrastructure.postgres.recorder import DdlStep
from infrastructure.postgres.sql import quote_ident
from infrastructure.postgres.subscription import AsyncpgSubscription


class AsyncpgApplicationRecorder(AsyncpgAggregateRecorder, ApplicationRecorder):
    """Events with notification ids that are assigned in commit order."""

    has_notifications = True
    # WATCHED_TOPIC_PREFIX: the events whose topics start with it are indexed apart, and
    # `last_watched_position` reads the last one's notification id from that index.
    watched_topic_prefix: str | None = None
    _watched_indexed: bool | None = None
    # The read of each prefix asked, and its statement, made once: they are the same on
    # every call, and authentication asks for them on every request.
    _watched_reads: dict[str, driver.Operation[int | None]] | None = None
    _watched_statements: dict[str, str] | None = None

    def watch_topics(self, prefix: str | None) -> None:
        self.watched_topic_prefix = prefix or None
        self._watched_indexed = None
        self._watched_reads = None
        self._watched_statements = None

    def ddl(self) -> list[DdlStep]:
        steps = super().ddl()
        prefix = self.watched_topic_prefix
        if prefix:
            sql = self.events_sql
            index = sql.watched_index_name(prefix)
            steps.append(DdlStep("relation", index, sql.create_watched_index(prefix)))
        return steps

    def last_watched_position(self, prefix: str) -> int | None:
        """The notification id of the last event whose topic starts with `prefix`; for
        another prefix than the watched one, of the last event of any topic (as late or
        later: what a caller checking for changes may safely use)."""
        return self.datastore.run(self._watched_read(prefix))

    async def async_last_watched_position(self, prefix: str) -> int | None:
        return await self.datastore.arun(self._watched_read(prefix))

    def _watched_read(self, prefix: str) -> driver.Operation[int | None]:
        reads = self._watched_reads
        if reads is None:
            reads = self._watched_reads = {}
        read = reads.get(prefix)
        if read is None:
            read = reads[prefix] = self._last_watched(prefix)
        return read

    def _last_watched(self, prefix: str) -> driver.Operation[int | None]:
        async def last(conn: driver.Connection) -> int | None:
            value = await conn.fetchval(await self.watched_position_sql(conn, prefix))
            return None if value is None else int(value)

        return last

    async def watched_position_sql(self, conn: driver.Connection, prefix: str) -> str:
        """The statement `last_watched_position(prefix)` runs: one row, one column (the
        position, or NULL before any such event), for a caller to read inside its own."""
        statements = self._watched_statements
        if statements is None:
            statements = self._watched_statements = {}
        statement = statements.get(prefix)
        if statement is not None:
            return statement
        watched = self.watched_topic_prefix
        # Made with the table; a store opened with CREATE_TABLE=false may lack the index,
        # and a scan of the whole log per call would cost more than it saves.
        if self._watched_indexed is None and prefix == watched:
            index = self.events_sql.watched_index_name(prefix)
            qualified = f"{quote_ident(self.datastore.schema)}.{quote_ident(index)}"
            found = await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", qualified)
            self._watched_indexed = bool(found)
        if prefix != watched or not self._watched_indexed:
            statement = self.events_sql.max_notification_id()
        else:
            statement = self.events_sql.last_watched_position(prefix)
        statements[prefix] = statement
        return statement

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
            return [rows_as.notification(r) for r in rows]

        return select
