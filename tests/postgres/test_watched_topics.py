"""WATCHED_TOPIC_PREFIX: the last notification id among the events whose topics start with a
prefix, read from a partial index (what a cached authentication is checked against)."""

from __future__ import annotations

from uuid import uuid4

import pytest
from eventsourcing.persistence import StoredEvent

from infrastructure.postgres import AsyncpgApplicationRecorder
from tests.postgres import support

pytestmark = pytest.mark.postgres
PREFIX = "domain.principal:"


def event(topic: str) -> StoredEvent:
    return StoredEvent(uuid4(), 1, topic, b"{}")


def test_the_last_watched_position_moves_only_for_watched_topics(schema: str) -> None:
    datastore = support.datastore(schema)
    try:
        recorder = AsyncpgApplicationRecorder(datastore)
        recorder.watch_topics(PREFIX)
        recorder.create_table()
        assert recorder.last_watched_position(PREFIX) is None

        recorder.insert_events([event("domain.principal:ApiKey.Issued")])
        recorder.insert_events([event("domain.account:Account.Opened")])
        # `_` and `%` in a topic are themselves, not LIKE's wildcards.
        recorder.insert_events([event("domain_principal:Lookalike")])
        recorder.insert_events([event("domain.principals%:Lookalike")])

        assert recorder.last_watched_position(PREFIX) == 1
        recorder.insert_events([event("domain.principal:ApiKey.Revoked")])
        assert recorder.last_watched_position(PREFIX) == 5
        # Another prefix than the watched one: the last event of any kind, as safe.
        recorder.insert_events([event("domain.account:Account.Deposited")])
        assert recorder.last_watched_position("domain.account:") == 6
        plan = datastore.run(
            lambda conn: conn.fetch("EXPLAIN " + recorder.events_sql.last_watched_position(PREFIX))
        )
        assert "watched" in " ".join(row[0] for row in plan)  # read from the partial index
    finally:
        datastore.close()


def test_a_table_made_without_the_index_falls_back_to_the_last_event(schema: str) -> None:
    datastore = support.datastore(schema)
    try:
        recorder = AsyncpgApplicationRecorder(datastore)
        recorder.create_table()  # as eventsourcing.postgres makes it: no watched index
        recorder.insert_events([event("domain.principal:ApiKey.Issued")])
        recorder.insert_events([event("domain.account:Account.Opened")])

        recorder.watch_topics(PREFIX)

        assert recorder.last_watched_position(PREFIX) == 2
    finally:
        datastore.close()
