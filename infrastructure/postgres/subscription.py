"""Subscriptions to the notification log, woken by LISTEN/NOTIFY."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from eventsourcing.persistence import ListenNotifySubscription

from infrastructure.postgres.errors import ConnectionLostError

if TYPE_CHECKING:
    from infrastructure.postgres.application_recorder import AsyncpgApplicationRecorder

# How often the listener looks at its connection when nothing wakes it.
_CHECK_INTERVAL = 1.0


class AsyncpgSubscription(ListenNotifySubscription["AsyncpgApplicationRecorder"]):
    """Pulls pages of notifications whenever the insert function's NOTIFY arrives.

    The pull thread is eventsourcing's own. The listener has a thread, a loop
    and a connection of its own: a LISTEN must stay registered between
    notifications, so its connection cannot go back to a pool, and its loop
    must keep running to hear them.
    """

    def __init__(
        self,
        recorder: AsyncpgApplicationRecorder,
        gt: int | None = None,
        topics: Sequence[str] = (),
    ) -> None:
        self._listen_loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        super().__init__(recorder=recorder, gt=gt, topics=topics)
        self._listen_thread = threading.Thread(
            target=self._listen, name="postgres-listen", daemon=True
        )
        self._listen_thread.start()

    def stop(self) -> None:
        super().stop()
        loop, wake = self._listen_loop, self._wake
        if loop is not None and wake is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(wake.set)

    def __exit__(self, *args: object, **kwargs: Any) -> None:
        try:
            super().__exit__(*args, **kwargs)
        finally:
            self._listen_thread.join()

    def _listen(self) -> None:
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._listen_until_stopped(loop))
        except BaseException as exc:
            if self._thread_error is None:
                self._thread_error = exc
            self.stop()
        finally:
            loop.close()

    async def _listen_until_stopped(self, loop: asyncio.AbstractEventLoop) -> None:
        self._wake = asyncio.Event()
        self._listen_loop = loop
        if self._has_been_stopped:
            return
        conn = await self._recorder.datastore.connect()
        try:
            await conn.add_listener(self._recorder.channel_name, self._on_notify)
            conn.add_termination_listener(self._on_termination)
            # The first pull may have run before the LISTEN was in place:
            # pull once more so that nothing committed in between is missed.
            self._has_been_notified.set()
            while not self._has_been_stopped:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), _CHECK_INTERVAL)
                self._wake.clear()
                if conn.is_closed() and not self._has_been_stopped:
                    msg = "the LISTEN connection to Postgres was lost"
                    raise ConnectionLostError(msg)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), 2.0)
            conn.terminate()

    def _on_notify(self, *_: object) -> None:
        self._has_been_notified.set()

    def _on_termination(self, _: object) -> None:
        if self._wake is not None:
            self._wake.set()
