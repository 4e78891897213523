"""The async counterparts, used from a foreign event loop as the HTTP layer will."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from uuid import uuid4

import pytest
import pytest_asyncio
from eventsourcing.persistence import StoredEvent

from infrastructure.postgres import AsyncpgApplicationRecorder, ReadSetConflictError
from tests.postgres import support

pytestmark = pytest.mark.postgres


@pytest_asyncio.fixture
async def recorder(schema: str) -> AsyncIterator[AsyncpgApplicationRecorder]:
    datastore = support.datastore(schema)
    recorder = AsyncpgApplicationRecorder(datastore)
    await recorder.async_create_table()
    yield recorder
    await datastore.aclose()


@pytest.mark.asyncio
async def test_async_methods_agree_with_the_sync_ones(
    recorder: AsyncpgApplicationRecorder,
) -> None:
    originator_id = uuid4()
    events = [StoredEvent(originator_id, v, f"topic{v}", b"state") for v in (1, 2)]

    assert await recorder.async_max_notification_id() is None
    assert await recorder.async_insert_events(events) == [1, 2]

    assert await recorder.async_select_events(originator_id) == events
    assert await recorder.async_select_events(originator_id, desc=True, limit=1) == events[1:]
    notifications = await recorder.async_select_notifications(start=None, limit=10)
    assert [n.id for n in notifications] == [1, 2]
    assert await recorder.async_max_notification_id() == 2
    # The sync path (lanes) and the async path (this loop's pool) see the same store.
    assert await asyncio.to_thread(recorder.select_notifications, None, 10) == notifications


@pytest.mark.asyncio
async def test_a_waiting_insert_does_not_block_the_event_loop(
    recorder: AsyncpgApplicationRecorder,
) -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    with support.admin_connection() as holder:
        holder.execute("BEGIN")
        holder.execute(f"LOCK TABLE {recorder.events_sql.qualified} IN EXCLUSIVE MODE")
        insert = asyncio.create_task(
            recorder.async_insert_events([StoredEvent(uuid4(), 1, "t", b"")])
        )
        clock = asyncio.create_task(ticker())
        await asyncio.sleep(0.3)
        assert not insert.done()
        holder.execute("COMMIT")
    assert await insert == [1]
    clock.cancel()
    # The loop kept running while the insert waited for the lock.
    assert ticks >= 10


@pytest.mark.asyncio
async def test_the_read_set_guard_holds_on_the_async_path(
    recorder: AsyncpgApplicationRecorder,
) -> None:
    read_id = uuid4()
    await recorder.async_insert_events([StoredEvent(read_id, 1, "t", b"")])
    await recorder.async_insert_events([StoredEvent(read_id, 2, "t", b"")])
    with pytest.raises(ReadSetConflictError):
        await recorder.async_insert_events(
            [StoredEvent(uuid4(), 1, "t", b"")], read_versions={read_id: 1}
        )
    assert await recorder.async_max_notification_id() == 2


@pytest.mark.asyncio
async def test_a_sync_call_made_inside_a_running_loop_still_works(
    recorder: AsyncpgApplicationRecorder,
) -> None:
    # It blocks this loop like any sync call would (use the async_ methods
    # here), but asyncio's one-loop-per-thread rule does not make it fail.
    await recorder.async_insert_events([StoredEvent(uuid4(), 1, "t", b"")])
    assert recorder.max_notification_id() == 1
