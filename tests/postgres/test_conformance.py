"""eventsourcing's own recorder, factory and application test cases, run on infrastructure.postgres.

Subclassed as the library's Postgres tests do: a set-up mixin that gives each
test a fresh schema and a datastore, `create_recorder()`, and the base cases
deleted at the end so that they do not run on their own.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar
from unittest import TestCase

import pytest
from eventsourcing.persistence import (
    AggregateRecorder,
    ApplicationRecorder,
    ProcessRecorder,
    TrackingRecorder,
)
from eventsourcing.tests.application import ExampleApplicationTestCase
from eventsourcing.tests.persistence import (
    AggregateRecorderTestCase,
    ApplicationRecorderTestCase,
    InfrastructureFactoryTestCase,
    NonInterleavingNotificationIDsBaseCase,
    ProcessRecorderTestCase,
    TrackingRecorderTestCase,
)
from eventsourcing.utils import Environment

from infrastructure.postgres import (
    AsyncpgAggregateRecorder,
    AsyncpgApplicationRecorder,
    AsyncpgFactory,
    AsyncpgProcessRecorder,
    AsyncpgTrackingRecorder,
)
from tests.postgres import support

pytestmark = pytest.mark.postgres

# The longest names Postgres allows, as the library's own tests use.
EVENTS_TABLE_NAME = "s" * 50 + "stored_events"
TRACKING_TABLE_NAME = "n" * 42 + "notification_tracking"


class PostgresSetUp(TestCase):
    """A schema of its own and a datastore on it, for each test."""

    pool_size = 2
    max_overflow = 10

    def setUp(self) -> None:
        super().setUp()
        self.schema = support.create_schema()
        self.datastore = support.datastore(
            self.schema, pool_size=self.pool_size, max_overflow=self.max_overflow
        )

    def tearDown(self) -> None:
        self.datastore.close()
        support.drop_schema(self.schema)
        super().tearDown()


class TestAggregateRecorder(PostgresSetUp, AggregateRecorderTestCase):
    def create_recorder(self) -> AggregateRecorder:
        recorder = AsyncpgAggregateRecorder(self.datastore, events_table_name=EVENTS_TABLE_NAME)
        recorder.create_table()
        return recorder


class TestApplicationRecorder(
    PostgresSetUp, ApplicationRecorderTestCase[AsyncpgApplicationRecorder]
):
    def create_recorder(self) -> AsyncpgApplicationRecorder:
        recorder = AsyncpgApplicationRecorder(self.datastore, events_table_name=EVENTS_TABLE_NAME)
        recorder.create_table()
        return recorder

    def test_insert_subscribe(self) -> None:
        self.optional_test_insert_subscribe()


class TestTrackingRecorder(PostgresSetUp, TrackingRecorderTestCase):
    def create_recorder(self) -> TrackingRecorder:
        recorder = AsyncpgTrackingRecorder(self.datastore, tracking_table_name=TRACKING_TABLE_NAME)
        recorder.create_table()
        return recorder


class TestProcessRecorder(PostgresSetUp, ProcessRecorderTestCase):
    def create_recorder(self) -> ProcessRecorder:
        recorder = AsyncpgProcessRecorder(
            self.datastore,
            events_table_name=EVENTS_TABLE_NAME,
            tracking_table_name=TRACKING_TABLE_NAME,
        )
        recorder.create_table()
        return recorder


class TestNonInterleavingNotificationIDs(PostgresSetUp, NonInterleavingNotificationIDsBaseCase):
    def create_recorder(self) -> ApplicationRecorder:
        recorder = AsyncpgApplicationRecorder(self.datastore, events_table_name=EVENTS_TABLE_NAME)
        recorder.create_table()
        return recorder


class TestFactory(InfrastructureFactoryTestCase[AsyncpgFactory]):
    class TrackingRecorderSubclass(AsyncpgTrackingRecorder):
        pass

    def setUp(self) -> None:
        self.schema = support.create_schema()
        self.env = Environment("TestCase")
        self.env.update(support.env_for(self.schema))
        super().setUp()

    def tearDown(self) -> None:
        super().tearDown()
        support.drop_schema(self.schema)

    def expected_factory_class(self) -> type[AsyncpgFactory]:
        return AsyncpgFactory

    def expected_aggregate_recorder_class(self) -> type[AggregateRecorder]:
        return AsyncpgAggregateRecorder

    def expected_application_recorder_class(self) -> type[ApplicationRecorder]:
        return AsyncpgApplicationRecorder

    def expected_tracking_recorder_class(self) -> type[TrackingRecorder]:
        return AsyncpgTrackingRecorder

    def tracking_recorder_subclass(self) -> type[TrackingRecorder]:
        return self.TrackingRecorderSubclass

    def expected_process_recorder_class(self) -> type[ProcessRecorder]:
        return AsyncpgProcessRecorder


class TestExampleApplication(ExampleApplicationTestCase):
    expected_factory_topic = "infrastructure.postgres.factory:AsyncpgFactory"
    saved_environ: ClassVar[dict[str, Any]] = {}

    def setUp(self) -> None:
        super().setUp()
        self.schema = support.create_schema()
        self.env_keys = support.env_for(self.schema)
        self.saved = {key: os.environ.get(key) for key in self.env_keys}
        os.environ.update(self.env_keys)

    def tearDown(self) -> None:
        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        support.drop_schema(self.schema)
        super().tearDown()


del AggregateRecorderTestCase
del ApplicationRecorderTestCase
del TrackingRecorderTestCase
del ProcessRecorderTestCase
del NonInterleavingNotificationIDsBaseCase
del InfrastructureFactoryTestCase
del ExampleApplicationTestCase
