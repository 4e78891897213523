"""Notification ids follow commit order: a reader never passes an insert that commits late."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from uuid import uuid4

import pytest
from eventsourcing.persistence import StoredEvent

from infrastructure.postgres import AsyncpgApplicationRecorder
from tests.postgres import support
from tests.postgres.test_read_set import wait_for_lock_waiters

pytestmark = pytest.mark.postgres


@pytest.fixture
def recorder(schema: str) -> Iterator[AsyncpgApplicationRecorder]:
    datastore = support.datastore(schema)
    recorder = AsyncpgApplicationRecorder(datastore)
    recorder.create_table()
    yield recorder
    datastore.close()


def test_a_reader_never_passes_an_insert_that_commits_late(
    recorder: AsyncpgApplicationRecorder, schema: str
) -> None:
    assert recorder.insert_events([StoredEvent(uuid4(), 1, "first", b"")]) == [1]
    fast_ids: list[Sequence[int] | None] = []

    with support.admin_connection() as slow:
        # A writer that has its ids but has not committed yet...
        slow.execute("BEGIN")
        rows = slow.execute(
            f"SELECT * FROM {recorder.events_sql.qualified_function}("
            "%s::uuid[], %s::bigint[], %s::text[], %s::bytea[], '{}'::uuid[], '{}'::bigint[])",
            ([uuid4()], [1], ["slow"], [b""]),
        ).fetchall()
        slow_ids = [row[0] for row in rows]
        # ...holds back a writer that started after it,
        fast = threading.Thread(
            target=lambda: fast_ids.append(
                recorder.insert_events([StoredEvent(uuid4(), 1, "fast", b"")])
            )
        )
        fast.start()
        wait_for_lock_waiters(schema, 1)
        # so a reader tailing the log sees no id past the last committed one.
        assert recorder.select_notifications(1, 10, inclusive_of_start=False) == []
        slow.execute("COMMIT")
    fast.join(timeout=10)

    assert slow_ids == [2]
    assert fast_ids == [[3]]
    tail = recorder.select_notifications(1, 10, inclusive_of_start=False)
    assert [(n.id, n.topic) for n in tail] == [(2, "slow"), (3, "fast")]
