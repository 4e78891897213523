"""The asyncpg boundary: the only module that imports the driver.

asyncpg ships no type information, so everything the package uses of it is
described here by small protocols, and the rest of the package stays typed.
"""

from __future__ import annotations

import asyncio
import select
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar, cast
from uuid import UUID

import asyncpg  # type: ignore[import-untyped, unused-ignore]
from eventsourcing.persistence import PersistenceError

PostgresError: type[Exception] = asyncpg.PostgresError
ClientInterfaceError: type[Exception] = asyncpg.InterfaceError
ClientDataError: type[Exception] = asyncpg.exceptions._base.DataError
# Raised by asyncpg's own protocol code (e.g. "cannot switch to state 12; another
# operation (2) is in progress"): the connection cannot be trusted afterwards.
InternalClientError: type[Exception] = asyncpg.exceptions._base.InternalClientError
# No server of a multi-host URL is what target_session_attrs asks for (read-write, say).
NoServerMatchedError: type[Exception] = asyncpg.exceptions._base.TargetServerAttributeNotMatched


class Record(Protocol):
    def __getitem__(self, key: int | str, /) -> Any: ...


class Transaction(Protocol):
    async def __aenter__(self) -> object: ...

    async def __aexit__(self, *exc_info: object) -> None: ...


class Connection(Protocol):
    async def fetch(self, query: str, *args: object) -> list[Record]: ...

    async def fetchval(self, query: str, *args: object) -> Any: ...

    async def fetchrow(self, query: str, *args: object) -> Record | None: ...

    async def execute(self, query: str, *args: object) -> str: ...

    def transaction(self) -> Transaction: ...

    async def add_listener(self, channel: str, callback: Callable[..., object]) -> None: ...

    def add_termination_listener(self, callback: Callable[[Any], object]) -> None: ...

    async def close(self, *, timeout: float | None = None) -> None: ...

    def terminate(self) -> None: ...

    def is_closed(self) -> bool: ...

    def get_server_pid(self) -> int: ...

    def is_in_transaction(self) -> bool: ...


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
    dsn: str = "",
    host: str,
    port: int,
    database: str,
    user: str,
    password: PasswordSource,
    timeout: float,
    server_settings: dict[str, str],
    command_timeout: float | None = None,
) -> dict[str, object]:
    # With a URL the driver reads the servers (one or several), the database, the user
    # and the password from it; a password given apart still wins.
    where: dict[str, object] = (
        {"dsn": dsn} if dsn else {"host": host, "port": port, "database": database, "user": user}
    )
    return {
        **where,
        "password": password or None,
        "timeout": timeout,
        "server_settings": server_settings,
        "command_timeout": command_timeout,
    }


# Which server instance a connection reached: its start time, address and port. Another
# answer than the last one means another server (a failover, or a restart).
SERVER_IDENTITY = (
    "SELECT pg_postmaster_start_time()::text || ' ' || "
    "coalesce(host(inet_server_addr()), 'local') || ':' || current_setting('port')"
)
# Told the identity of the server each new connection reached.
ServerSeen = Callable[[str], None]


async def _prepare_connection(conn: Any, on_server: ServerSeen | None = None) -> None:
    _watch(conn)
    await _use_plain_uuids(conn)
    if on_server is not None:
        on_server(await conn.fetchval(SERVER_IDENTITY))


async def connect(kwargs: dict[str, object], on_server: ServerSeen | None = None) -> Connection:
    conn = await asyncpg.connect(**kwargs)
    try:
        await _prepare_connection(conn, on_server)
    except BaseException:
        conn.terminate()
        raise
    return cast(Connection, conn)


async def _keep_session(conn: Any) -> None:
    # Pooled connections never change session state (LISTEN uses a
    # dedicated connection), so asyncpg's default reset query would only
    # add a round trip to every release.
    del conn


async def create_pool(
    kwargs: dict[str, object],
    *,
    max_size: int,
    max_idle: float,
    on_server: ServerSeen | None = None,
) -> Pool:
    async def prepare(conn: Any) -> None:
        await _prepare_connection(conn, on_server)

    pool = await asyncpg.create_pool(
        min_size=0,
        max_size=max_size,
        max_inactive_connection_lifetime=max_idle,
        init=prepare,
        reset=_keep_session,
        **kwargs,
    )
    return cast(Pool, pool)


# A write refused by a server in recovery (or made read-only).
READ_ONLY_SQLSTATE = "25006"


def sqlstate(exc: BaseException) -> str | None:
    code = getattr(exc, "sqlstate", None)
    return code if isinstance(code, str) else None


# The last bytes of a ReadyForQuery message, whatever the transaction status byte.
_READY_FOR_QUERY = b"Z\x00\x00\x00\x05"


class _Watch(asyncio.Protocol):
    """Sits between a connection's transport and asyncpg's protocol and keeps the last
    bytes the server sent.

    Every exchange ends with the server's ReadyForQuery; after it, the server speaks
    only to end the session (a FATAL notice: an admin kill, a restart, an idle
    timeout). asyncpg reads such a notice as a protocol error and parks the
    connection in an error state until the socket closes, so the next statement
    fails with "cannot switch to state 12; another operation (2) is in progress".
    The notice often comes in the same read as the reply before it (the backend was
    killed while it answered), where a poll of the socket cannot see it.
    """

    __slots__ = ("inner", "tail")

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        # A connection is handed over after its startup, which ends with ReadyForQuery.
        self.tail = _READY_FOR_QUERY + b"I"

    def data_received(self, data: bytes) -> None:
        self.tail = data[-6:] if len(data) >= 6 else (self.tail + data)[-6:]
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        result: bool | None = self.inner.eof_received()
        return result

    def connection_lost(self, exc: Exception | None) -> None:
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    @property
    def quiet(self) -> bool:
        """Whether the last thing the server said was ReadyForQuery."""
        return self.tail[:5] == _READY_FOR_QUERY


def _watch(conn: Any) -> None:
    transport = getattr(conn, "_transport", None)
    if transport is not None and not isinstance(transport.get_protocol(), _Watch):
        transport.set_protocol(_Watch(transport.get_protocol()))


def sound(conn: Connection) -> bool:
    """Whether an idle connection may take a new statement.

    Not if it is closed, or inside a transaction (a call must never leave one open
    for the next), or if the server said anything since its last ReadyForQuery: in
    bytes asyncpg already read, or still waiting in the socket. Polling the socket
    costs no round trip, unlike a pre-ping.
    """
    try:
        if conn.is_closed() or conn.is_in_transaction():
            return False
    except ClientInterfaceError:
        return False  # a pool's proxy, detached from a connection that was lost
    transport = getattr(conn, "_transport", None)
    if transport is None:
        return True
    watch = transport.get_protocol()
    if isinstance(watch, _Watch) and not watch.quiet:
        return False
    sock = transport.get_extra_info("socket")
    if sock is None:
        return True
    poller = getattr(select, "poll", None)
    if poller is None:
        readable, _, _ = select.select([sock.fileno()], [], [], 0)
        return not readable
    p = poller()
    p.register(sock.fileno(), select.POLLIN)
    return not p.poll(0)


def terminate(conn: Connection) -> None:
    """Close at once. A pool's proxy whose connection was lost is detached from it, and
    every call on it raises ("connection has been released back to the pool"): that
    connection is closed already."""
    try:
        conn.terminate()
    except ClientInterfaceError:
        return


def left_clean(conn: Connection, exc: BaseException) -> bool:
    """Whether a connection on which a call raised `exc` may be used again.

    Only after a server error (or one of ours raised between statements) on a
    connection that is idle and sound; after anything else (a client or protocol
    error, a cancelled or interrupted call) its state is unknown.
    """
    if not isinstance(exc, PostgresError | PersistenceError):
        return False
    if sqlstate(exc) == READ_ONLY_SQLSTATE:
        return False  # a server that no longer takes writes (demoted): find the one that does
    return sound(conn)


T = TypeVar("T")
# A unit of work on one connection, run by the lanes (sync) or a loop pool (async).
Operation = Callable[[Connection], Awaitable[T]]
