"""A drop-in replacement: the tables eventsourcing.postgres makes serve as they are, both ways."""

from __future__ import annotations

from uuid import uuid4

import pytest
from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore

from infrastructure.postgres import AsyncpgApplicationRecorder
from tests.postgres import support

pytestmark = pytest.mark.postgres


def test_eventsourcing_postgres_and_this_module_share_one_log(schema: str) -> None:
    s = support.base_settings()
    with PostgresDatastore(
        s.dbname, s.host, s.port, s.user, s.password, schema=schema
    ) as theirs_datastore:
        theirs = PostgresApplicationRecorder(theirs_datastore)
        theirs.create_table()
        first = StoredEvent(uuid4(), 1, "theirs", b"1")
        assert theirs.insert_events([first]) == [1]

        ours_datastore = support.datastore(schema)
        try:
            # No create_table(): the insert function is added on first use.
            ours = AsyncpgApplicationRecorder(ours_datastore)
            second = StoredEvent(first.originator_id, 2, "ours", b"2")
            assert ours.insert_events([second]) == [2]
            assert ours.select_events(first.originator_id) == [first, second]
            assert [n.topic for n in theirs.select_notifications(None, 10)] == ["theirs", "ours"]
            assert ours.max_notification_id() == theirs.max_notification_id() == 2
        finally:
            ours_datastore.close()
