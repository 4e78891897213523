"""The infrastructure factory that eventsourcing finds through PERSISTENCE_MODULE."""

from __future__ import annotations

from types import TracebackType
from typing import Self, TypeVar, cast

from eventsourcing.persistence import (
    AggregateRecorder,
    ApplicationRecorder,
    InfrastructureFactory,
    ProcessRecorder,
)
from eventsourcing.utils import Environment, EnvType, resolve_topic, strtobool

from infrastructure.postgres import settings as keys
from infrastructure.postgres.aggregate_recorder import AsyncpgAggregateRecorder
from infrastructure.postgres.application_recorder import AsyncpgApplicationRecorder
from infrastructure.postgres.datastore import AsyncpgDatastore
from infrastructure.postgres.process_recorder import AsyncpgProcessRecorder
from infrastructure.postgres.settings import PostgresSettings
from infrastructure.postgres.tracking_recorder import AsyncpgTrackingRecorder

TAsyncpgTrackingRecorder = TypeVar("TAsyncpgTrackingRecorder", bound=AsyncpgTrackingRecorder)


class AsyncpgFactory(InfrastructureFactory[AsyncpgTrackingRecorder]):
    """Recorders on one shared datastore, with the table names eventsourcing.postgres uses."""

    POSTGRES_DBNAME = keys.POSTGRES_DBNAME
    POSTGRES_HOST = keys.POSTGRES_HOST
    POSTGRES_PORT = keys.POSTGRES_PORT
    POSTGRES_USER = keys.POSTGRES_USER
    POSTGRES_PASSWORD = keys.POSTGRES_PASSWORD
    POSTGRES_GET_PASSWORD_TOPIC = keys.POSTGRES_GET_PASSWORD_TOPIC
    POSTGRES_CONNECT_TIMEOUT = keys.POSTGRES_CONNECT_TIMEOUT
    POSTGRES_CONN_MAX_AGE = keys.POSTGRES_CONN_MAX_AGE
    POSTGRES_PRE_PING = keys.POSTGRES_PRE_PING
    POSTGRES_MAX_WAITING = keys.POSTGRES_MAX_WAITING
    POSTGRES_LOCK_TIMEOUT = keys.POSTGRES_LOCK_TIMEOUT
    POSTGRES_STATEMENT_TIMEOUT = keys.POSTGRES_STATEMENT_TIMEOUT
    POSTGRES_APPLICATION_NAME = keys.POSTGRES_APPLICATION_NAME
    POSTGRES_POOL_SIZE = keys.POSTGRES_POOL_SIZE
    POSTGRES_MAX_OVERFLOW = keys.POSTGRES_MAX_OVERFLOW
    POSTGRES_IDLE_IN_TRANSACTION_SESSION_TIMEOUT = keys.POSTGRES_IDLE_IN_TRANSACTION_SESSION_TIMEOUT
    POSTGRES_SCHEMA = keys.POSTGRES_SCHEMA
    POSTGRES_SINGLE_ROW_TRACKING = keys.POSTGRES_SINGLE_ROW_TRACKING
    ORIGINATOR_ID_TYPE = keys.ORIGINATOR_ID_TYPE
    POSTGRES_ENABLE_DB_FUNCTIONS = keys.POSTGRES_ENABLE_DB_FUNCTIONS
    CREATE_TABLE = "CREATE_TABLE"
    WATCHED_TOPIC_PREFIX = "WATCHED_TOPIC_PREFIX"

    aggregate_recorder_class = AsyncpgAggregateRecorder
    application_recorder_class = AsyncpgApplicationRecorder
    tracking_recorder_class = AsyncpgTrackingRecorder
    process_recorder_class = AsyncpgProcessRecorder

    def __init__(self, env: Environment | EnvType | None):
        super().__init__(env)
        self.settings = PostgresSettings.from_env(self.env)
        self.datastore = AsyncpgDatastore(self.settings)

    def env_create_table(self) -> bool:
        return strtobool(self.env.get(self.CREATE_TABLE) or "yes")

    def aggregate_recorder(self, purpose: str = "events") -> AggregateRecorder:
        prefix = self.env.name.lower() or "stored"
        recorder = type(self).aggregate_recorder_class(
            self.datastore, events_table_name=f"{prefix}_{purpose}"
        )
        if self.env_create_table():
            recorder.create_table()
        return recorder

    def application_recorder(self) -> ApplicationRecorder:
        prefix = self.env.name.lower() or "stored"
        topic = self.env.get(self.APPLICATION_RECORDER_TOPIC)
        recorder_class: type[AsyncpgApplicationRecorder] = (
            resolve_topic(topic) if topic else type(self).application_recorder_class
        )
        assert issubclass(recorder_class, AsyncpgApplicationRecorder)
        recorder = recorder_class(self.datastore, events_table_name=f"{prefix}_events")
        recorder.watch_topics(self.env.get(self.WATCHED_TOPIC_PREFIX))
        if self.env_create_table():
            recorder.create_table()
        return recorder

    def tracking_recorder(
        self, tracking_recorder_class: type[TAsyncpgTrackingRecorder] | None = None
    ) -> TAsyncpgTrackingRecorder:
        prefix = self.env.name.lower() or "notification"
        if tracking_recorder_class is None:
            topic = self.env.get(self.TRACKING_RECORDER_TOPIC)
            tracking_recorder_class = cast(
                "type[TAsyncpgTrackingRecorder]",
                resolve_topic(topic) if topic else type(self).tracking_recorder_class,
            )
        assert issubclass(tracking_recorder_class, AsyncpgTrackingRecorder)
        recorder = tracking_recorder_class(self.datastore, tracking_table_name=f"{prefix}_tracking")
        if self.env_create_table():
            recorder.create_table()
        return recorder

    def process_recorder(self) -> ProcessRecorder:
        events_prefix = self.env.name.lower() or "stored"
        tracking_prefix = self.env.name.lower() or "notification"
        topic = self.env.get(self.PROCESS_RECORDER_TOPIC)
        recorder_class: type[AsyncpgProcessRecorder] = (
            resolve_topic(topic) if topic else type(self).process_recorder_class
        )
        assert issubclass(recorder_class, AsyncpgProcessRecorder)
        recorder = recorder_class(
            self.datastore,
            events_table_name=f"{events_prefix}_events",
            tracking_table_name=f"{tracking_prefix}_tracking",
        )
        recorder.watch_topics(self.env.get(self.WATCHED_TOPIC_PREFIX))
        if self.env_create_table():
            recorder.create_table()
        return recorder

    def close(self) -> None:
        self.datastore.close()

    def __enter__(self) -> Self:
        super().__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        super().__exit__(exc_type, exc_val, exc_tb)
        self.close()
