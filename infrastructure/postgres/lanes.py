"""The bridge from eventsourcing's synchronous recorder calls to asyncpg.

A lane is a private event loop paired with one asyncpg connection. A thread
that makes a synchronous call checks a lane out of the pool, drives the lane's
loop itself (`run_until_complete`) for the length of the call, and checks it
back in. An asyncio loop may be run by any thread as long as only one runs it
at a time, and an asyncpg connection only needs its own loop to be running
while it is used.

Why not one loop thread owning an asyncpg pool, with synchronous callers
submitting coroutines to it? Each call would then cost two extra thread
wake-ups (caller to loop thread and back): measured here at about 130 us per
call, more than a whole Postgres round trip on the same machine. Driving the
lane in the calling thread costs about 20 us over a bare asyncpg call.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from eventsourcing.persistence import InterfaceError

from infrastructure.postgres import driver
from infrastructure.postgres.errors import ConnectionLostError, PoolTimeoutError, translate

T = TypeVar("T")
Connector = Callable[[], Awaitable[driver.Connection]]


class Lane:
    """A private event loop and the connection that lives on it."""

    __slots__ = ("conn", "loop", "opened_at", "released_at")

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.conn: driver.Connection | None = None
        self.opened_at = 0.0
        self.released_at = time.monotonic()


class LanePool:
    """At most `max_size` lanes; `size` of them are kept however long they idle."""

    def __init__(
        self,
        connect: Connector,
        *,
        size: int,
        max_size: int,
        wait_timeout: float,
        max_waiting: int,
        max_age: float,
        max_idle: float,
        pre_ping: bool,
    ) -> None:
        self._connect = connect
        self._size = size
        self._max_size = max_size
        self._wait_timeout = wait_timeout
        self._max_waiting = max_waiting
        self._max_age = max_age
        self._max_idle = max_idle
        self._pre_ping = pre_ping
        # A plain Lock: the default RLock costs more on every checkout.
        self._cond = threading.Condition(threading.Lock())
        self._idle: list[Lane] = []
        self._count = 0
        self._waiting = 0
        self._closed = False
        self._helper: ThreadPoolExecutor | None = None

    @property
    def closed(self) -> bool:
        return self._closed

    def run(self, op: driver.Operation[T], *, idempotent: bool) -> T:
        """Run `op` on a connection and return its result, from any thread.

        An idempotent `op` is tried once more on a fresh connection if the
        connection breaks under it.
        """
        lane = self._checkout()
        try:
            return self._drive(lane, self._call(lane, op, idempotent=idempotent))
        except Exception:
            raise
        except BaseException:
            # Interrupted mid-call: the connection may be mid-protocol.
            self._abandon(lane)
            raise
        finally:
            self._checkin(lane)

    def close(self, *, graceful: bool = True) -> None:
        """Close idle lanes now and busy ones when they come back.

        Not graceful (from a finalizer) means no loop is run: connections are
        aborted and their sockets left to the garbage collector.
        """
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._count -= len(idle)
            self._cond.notify_all()
        for lane in idle:
            self._dispose(lane, graceful=graceful)
        if self._helper is not None:
            self._helper.shutdown(wait=False)

    async def _call(self, lane: Lane, op: driver.Operation[T], *, idempotent: bool) -> T:
        for attempt in (1, 2):
            conn = await self._ready(lane)
            try:
                return await op(conn)
            except Exception as exc:
                # Only a connection left idle and sound goes back to the pool: after a
                # client or protocol error its state is unknown, so it is closed now
                # rather than found broken by the next call.
                broken = not driver.left_clean(conn, exc)
                if broken:
                    _drop(lane)
                error = translate(exc, broken=broken)
                if isinstance(error, ConnectionLostError) and idempotent and attempt == 1:
                    continue
                if error is None or error is exc:
                    raise
                raise error from exc
        msg = "unreachable"
        raise AssertionError(msg)

    async def _ready(self, lane: Lane) -> driver.Connection:
        conn = lane.conn
        if conn is not None and not await self._usable(lane, conn):
            _drop(lane)
            conn = None
        if conn is None:
            conn = await self._connect()
            lane.conn = conn
            lane.opened_at = time.monotonic()
        return conn

    async def _usable(self, lane: Lane, conn: driver.Connection) -> bool:
        if time.monotonic() - lane.opened_at > self._max_age or not driver.sound(conn):
            return False
        if self._pre_ping:
            try:
                await conn.execute("")
            except Exception:
                return False
        return True

    def _drive(self, lane: Lane, coro: Coroutine[Any, Any, T]) -> T:
        if asyncio.events._get_running_loop() is None:
            return lane.loop.run_until_complete(coro)
        # This thread already runs a loop (a synchronous call made from async
        # code). asyncio forbids a second loop in the same thread, so a helper
        # thread drives the lane while this one blocks, as a sync call does.
        return self._helper_pool().submit(lane.loop.run_until_complete, coro).result()

    def _helper_pool(self) -> ThreadPoolExecutor:
        with self._cond:
            if self._helper is None:
                self._helper = ThreadPoolExecutor(
                    max_workers=self._max_size, thread_name_prefix="postgres-lane"
                )
            return self._helper

    def _checkout(self) -> Lane:
        deadline: float | None = None
        with self._cond:
            while True:
                if self._closed:
                    msg = "the Postgres datastore is closed"
                    raise InterfaceError(msg)
                if self._idle:
                    return self._idle.pop()
                if self._count < self._max_size:
                    self._count += 1
                    break
                if self._max_waiting and self._waiting >= self._max_waiting:
                    msg = f"{self._waiting} callers already wait for a Postgres connection"
                    raise PoolTimeoutError(msg)
                if deadline is None:
                    deadline = time.monotonic() + self._wait_timeout
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    msg = (
                        f"no Postgres connection became free within {self._wait_timeout}s "
                        f"(all {self._max_size} in use)"
                    )
                    raise PoolTimeoutError(msg)
                self._waiting += 1
                try:
                    self._cond.wait(remaining)
                finally:
                    self._waiting -= 1
        try:
            return Lane()
        except BaseException:
            with self._cond:
                self._count -= 1
                self._cond.notify()
            raise

    def _checkin(self, lane: Lane) -> None:
        now = time.monotonic()
        lane.released_at = now
        retired: list[Lane] = []
        with self._cond:
            if self._closed:
                self._count -= 1
                retired.append(lane)
            else:
                self._idle.append(lane)
                # The least recently used lanes sit at the bottom of the stack.
                while (
                    self._count > self._size
                    and len(self._idle) > 1
                    and now - self._idle[0].released_at > self._max_idle
                ):
                    retired.append(self._idle.pop(0))
                    self._count -= 1
                self._cond.notify()
        for old in retired:
            self._dispose(old)

    def _abandon(self, lane: Lane) -> None:
        with contextlib.suppress(Exception):
            tasks = asyncio.all_tasks(lane.loop)
            for task in tasks:
                task.cancel()
            _drop(lane)
            if tasks:
                self._drive(lane, _settle(tasks))

    def _dispose(self, lane: Lane, *, graceful: bool = True) -> None:
        conn, lane.conn = lane.conn, None
        with contextlib.suppress(Exception):
            if conn is not None and not conn.is_closed():
                if graceful:
                    self._drive(lane, _close_gracefully(conn))
                else:
                    conn.terminate()
        with contextlib.suppress(Exception):
            if graceful:
                self._abandon(lane)
            lane.loop.close()


async def _settle(tasks: set[asyncio.Task[Any]]) -> None:
    await asyncio.gather(*tasks, return_exceptions=True)


async def _close_gracefully(conn: driver.Connection) -> None:
    try:
        await conn.close(timeout=2.0)
    except Exception:
        conn.terminate()


def _drop(lane: Lane) -> None:
    conn, lane.conn = lane.conn, None
    if conn is not None:
        with contextlib.suppress(Exception):
            conn.terminate()
