"""The asyncpg boundary: the only module that imports the driver.

asyncpg ships no type information, so everything the package uses of it is
described here by small protocols, and the rest of the package stays typed.
"""

from __future__ import annotations

import select
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar, cast
from uuid import UUID

import asyncpg  # type: ignore[import-untyped, unused-ignore]

PostgresError: type[Exception] = asyncpg.PostgresError
ClientInterfaceError: type[Exception] = asyncpg.InterfaceError
ConnectionDoesNotExistError: type[Exception] = asyncpg.exceptions.ConnectionDoesNotExistError


class Record(Protocol):
    def __getitem__(self, key: int | str, /) -> Any: ...


class Transaction(Protocol):
    async def __aenter__(self) -> object: ...

    async def __aexit__(self, *exc_info: object) -> None: ...


class Connection(Protocol):
    async def fetch(self, query: str, *args: object) -> list[Record]: ...

    async def fetchval(self, query: str, *args: object) -> Any: ...

    async def execute(self, query: str, *args: object) -> str: ...

    def transaction(self) -> Transaction: ...

    async def add_listener(self, channel: str, callback: Callable[..., object]) -> None: ...

    def add_termination_listener(self, callback: Callable[[Any], object]) -> None: ...

    async def close(self, *, timeout: float | None = None) -> None: ...

    def terminate(self) -> None: ...

    def is_closed(self) -> bool: ...

    def get_server_pid(self) -> int: ...


class PooledConnection(Protocol):
    async def __aenter__(self) -> Connection: ...

    async def __aexit__(self, *exc_info: object) -> None: ...


class Pool(Protocol):
    def acquire(self) -> PooledConnection: ...

    async def close(self) -> None: ...

    def terminate(self) -> None: ...


PasswordSource = str | Callable[[], str] | None


def _uuid_from_binary(data: bytes) -> UUID:
    return UUID(bytes=data)


def _uuid_to_binary(value: UUID | str) -> bytes:
    return value.bytes if isinstance(value, UUID) else UUID(value).bytes


async def _use_plain_uuids(conn: Any) -> None:
    # asyncpg decodes uuid columns to its own UUID subclass, which
    # eventsourcing's JSON transcoder (it looks types up exactly) cannot
    # encode when an id ends up in a snapshot; plain uuid.UUID avoids that.
    await conn.set_type_codec(
        "uuid",
        schema="pg_catalog",
        encoder=_uuid_to_binary,
        decoder=_uuid_from_binary,
        format="binary",
    )


def connect_kwargs(
    *,
    host: str,
    port: int,
    database: str,
    user: str,
    password: PasswordSource,
    timeout: float,
    server_settings: dict[str, str],
) -> dict[str, object]:
    return {
        "host": host,
        "port": port,
        "database": database,
        "user": user,
        "password": password or None,
        "timeout": timeout,
        "server_settings": server_settings,
    }


async def connect(kwargs: dict[str, object]) -> Connection:
    conn = await asyncpg.connect(**kwargs)
    try:
        await _use_plain_uuids(conn)
    except BaseException:
        conn.terminate()
        raise
    return cast(Connection, conn)


async def _keep_session(conn: Any) -> None:
    # Pooled connections never change session state (LISTEN uses a
    # dedicated connection), so asyncpg's default reset query would only
    # add a round trip to every release.
    del conn


async def create_pool(kwargs: dict[str, object], *, max_size: int, max_idle: float) -> Pool:
    pool = await asyncpg.create_pool(
        min_size=0,
        max_size=max_size,
        max_inactive_connection_lifetime=max_idle,
        init=_use_plain_uuids,
        reset=_keep_session,
        **kwargs,
    )
    return cast(Pool, pool)


def sqlstate(exc: BaseException) -> str | None:
    code = getattr(exc, "sqlstate", None)
    return code if isinstance(code, str) else None


def has_pending_input(conn: Connection) -> bool:
    """Whether the server sent something while the connection sat idle.

    An idle pooled connection receives nothing unless the server is going
    away (a termination notice, then end of file), so readable means stale.
    Polling the socket costs no round trip, unlike a pre-ping.
    """
    transport = getattr(conn, "_transport", None)
    sock = transport.get_extra_info("socket") if transport is not None else None
    if sock is None:
        return False
    poller = getattr(select, "poll", None)
    if poller is None:
        readable, _, _ = select.select([sock.fileno()], [], [], 0)
        return bool(readable)
    p = poller()
    p.register(sock.fileno(), select.POLLIN)
    return bool(p.poll(0))


T = TypeVar("T")
# A unit of work on one connection, run by the lanes (sync) or a loop pool (async).
Operation = Callable[[Connection], Awaitable[T]]
