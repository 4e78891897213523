"""The datastore: connection settings, the lanes for sync calls, pools for async calls."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import weakref
from collections.abc import Callable
from types import TracebackType
from typing import Self, TypeVar

from eventsourcing.persistence import InterfaceError

from infrastructure.postgres import driver
from infrastructure.postgres.errors import (
    ConnectionLostError,
    PoolTimeoutError,
    StoreConnectionError,
    connect_error,
    translate,
)
from infrastructure.postgres.lanes import LanePool
from infrastructure.postgres.settings import PostgresSettings

T = TypeVar("T")
log = logging.getLogger("sluice.store")


class AsyncpgDatastore:
    """Everything the recorders need to reach one database schema.

    `run(op)` serves synchronous callers through the lanes. `arun(op)` serves
    coroutines: it uses an asyncpg pool that belongs to the caller's own event
    loop (created on first use), so an async web server reaches the store
    without blocking its loop and without a hop to another thread.
    """

    def __init__(self, settings: PostgresSettings) -> None:
        self.settings = settings
        self.schema = settings.schema
        self._connect_kwargs = driver.connect_kwargs(
            dsn=settings.dsn,
            host=settings.host,
            port=settings.port,
            database=settings.dbname,
            user=settings.user,
            password=settings.get_password or settings.password,
            timeout=settings.connect_timeout,
            server_settings=settings.server_settings(),
            command_timeout=settings.command_timeout,
        )
        self.lanes = LanePool(
            self.connect,
            size=settings.pool_size,
            max_size=settings.max_size,
            wait_timeout=settings.connect_timeout,
            max_waiting=settings.max_waiting,
            max_age=settings.conn_max_age,
            max_idle=settings.max_idle,
            pre_ping=settings.pre_ping,
        )
        self._loop_pools: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, asyncio.Task[driver.Pool]
        ] = weakref.WeakKeyDictionary()
        self._loop_pools_lock = threading.Lock()
        self._closed = False
        # The server the last new connection reached, and who is told when it changes.
        self._server: str | None = None
        self._server_listeners: list[Callable[[], None]] = []

    def on_server_change(self, listener: Callable[[], None]) -> None:
        """Call `listener` when a new connection reaches another server than the last one
        did (a failover, a restart), before that connection is used: what was read from the
        last server may not be on this one (a commit it had not replicated)."""
        self._server_listeners.append(listener)

    def _seen(self, server: str) -> None:
        with self._loop_pools_lock:
            changed = self._server not in (None, server)
            self._server = server
        if changed:
            log.warning("the store's connections now reach another server (%s)", server)
            for listener in self._server_listeners:
                listener()

    async def connect(self) -> driver.Connection:
        """A new connection, not from any pool (LISTEN needs one of its own)."""
        try:
            return await driver.connect(self._connect_kwargs, self._seen)
        except Exception as exc:
            raise connect_error(exc, self.settings.address) from exc

    def run(self, op: driver.Operation[T], *, idempotent: bool = True) -> T:
        return self.lanes.run(op, idempotent=idempotent)

    async def arun(self, op: driver.Operation[T], *, idempotent: bool = True) -> T:
        pool = await self._loop_pool()
        for attempt in (1, 2):
            acquisition, conn = await self._acquire_sound(pool)
            try:
                result = await op(conn)
                if conn.is_in_transaction():
                    driver.terminate(conn)  # a call must never leave a transaction for the next
                return result
            except Exception as exc:
                # As in the lanes: a connection whose state is unknown is closed, so the
                # pool replaces it instead of lending it again.
                broken = not driver.left_clean(conn, exc)
                if broken:
                    driver.terminate(conn)
                error = translate(exc, broken=broken)
                if isinstance(error, ConnectionLostError) and idempotent and attempt == 1:
                    continue
                if error is None or error is exc:
                    raise
                raise error from exc
            except BaseException:
                # Cancelled mid-call: the connection may be mid-protocol.
                driver.terminate(conn)
                raise
            finally:
                await acquisition.__aexit__(None, None, None)
        msg = "unreachable"
        raise AssertionError(msg)

    async def _acquire_sound(
        self, pool: driver.Pool
    ) -> tuple[driver.PooledConnection, driver.Connection]:
        """A connection from the pool that the server has not ended while it sat idle."""
        for _ in range(self.settings.max_size + 1):
            acquisition = pool.acquire()
            try:
                conn = await acquisition.__aenter__()
            except Exception as exc:
                raise self._acquire_error(exc) from exc
            if driver.sound(conn):
                return acquisition, conn
            driver.terminate(conn)  # released closed, the pool opens a new one in its place
            await acquisition.__aexit__(None, None, None)
        msg = "no sound Postgres connection in the pool"
        raise ConnectionLostError(msg)

    def _acquire_error(self, exc: Exception) -> Exception:
        if isinstance(exc, StoreConnectionError | InterfaceError):
            return exc
        if isinstance(exc, asyncio.TimeoutError | TimeoutError):
            return PoolTimeoutError(
                f"no Postgres connection became free within {self.settings.connect_timeout}s"
            )
        return connect_error(exc, self.settings.address)

    async def _loop_pool(self) -> driver.Pool:
        if self._closed:
            msg = "the Postgres datastore is closed"
            raise InterfaceError(msg)
        loop = asyncio.get_running_loop()
        with self._loop_pools_lock:
            task = self._loop_pools.get(loop)
            if task is None:
                task = loop.create_task(
                    driver.create_pool(
                        self._connect_kwargs,
                        max_size=self.settings.max_size,
                        max_idle=self.settings.max_idle,
                        on_server=self._seen,
                    )
                )
                self._loop_pools[loop] = task
        try:
            return await asyncio.shield(task)
        except Exception:
            with self._loop_pools_lock:
                if self._loop_pools.get(loop) is task:
                    del self._loop_pools[loop]
            raise

    def close(self, *, graceful: bool = True) -> None:
        """Close every connection; safe to call more than once, from any thread."""
        self._closed = True
        self.lanes.close(graceful=graceful)
        with self._loop_pools_lock:
            pools = list(self._loop_pools.items())
            self._loop_pools.clear()
        for loop, task in pools:
            if not task.done() or task.cancelled() or task.exception() is not None:
                continue
            pool = task.result()
            with contextlib.suppress(RuntimeError):
                if loop.is_closed():
                    pool.terminate()
                else:
                    loop.call_soon_threadsafe(pool.terminate)

    async def aclose(self) -> None:
        """Close gracefully from a coroutine (the pool of this loop included)."""
        loop = asyncio.get_running_loop()
        with self._loop_pools_lock:
            task = self._loop_pools.pop(loop, None)
        if task is not None and task.done() and task.exception() is None:
            await task.result().close()
        await asyncio.to_thread(self.close)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        self.close()

    def __del__(self) -> None:
        # A finalizer may run inside any code, even inside a lane's loop, so
        # it runs no loop: connections are aborted, not closed politely.
        with contextlib.suppress(Exception):
            if not self.lanes.closed:
                self.close(graceful=False)
