"""The errors the store raises, and the translation of driver errors into them.

Every error is one of eventsourcing's persistence errors, so callers written
for `eventsourcing.postgres` keep working. `RetryableError` marks the ones
after which the same call may simply be made again: the transaction certainly
did not commit.
"""

from __future__ import annotations

import asyncio
from uuid import UUID

from eventsourcing.persistence import (
    DatabaseError,
    DataError,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    OperationalError,
    PersistenceError,
    ProgrammingError,
)

from infrastructure import read_set
from infrastructure.postgres import driver

# A code of our own, raised by the insert function when the read set changed.
READ_SET_CONFLICT_SQLSTATE = "SL409"

_CONNECTION_GONE_SQLSTATES = frozenset({"57P01", "57P02", "25P03", "25P04"})
_RETRYABLE_SQLSTATES = frozenset({"40001", "40P01"})
_UNAVAILABLE_SQLSTATES = frozenset({"53300", "57P03"})


class RetryableError(OperationalError):
    """Nothing was committed, and the same call may be made again as it is."""


class LockTimeoutError(RetryableError):
    """The insert lock was not granted within POSTGRES_LOCK_TIMEOUT."""


class StatementTimeoutError(RetryableError):
    """A statement ran longer than POSTGRES_STATEMENT_TIMEOUT (or was cancelled)."""


class PoolTimeoutError(RetryableError):
    """No connection became free within POSTGRES_CONNECT_TIMEOUT."""


class ReadOnlyServerError(RetryableError):
    """The server refused a write: it is a standby now (or read-only). Its connection is
    dropped, so the next one goes to the server that accepts writes."""


class StoreConnectionError(OperationalError):
    """A connection to the server could not be opened."""

    def __init__(self, address: str, reason: str) -> None:
        super().__init__(f"cannot connect to PostgreSQL at {address}: {reason}")
        self.address = address  # host:port, or the servers of a multi-host URL


class StoreUnavailableError(StoreConnectionError, RetryableError):
    """The server is unreachable or refusing connections for now."""


class ConnectionLostError(OperationalError):
    """The connection broke during a call.

    For a read this is retried once by the store itself. For a write the
    outcome is unknown: the unique key on (originator_id, originator_version)
    makes a repeat harmless, but the repeat reports an IntegrityError if the
    first attempt had in fact committed.
    """


class ReadSetConflictError(read_set.ReadSetConflictError):
    """An aggregate the caller read has changed since: nothing was written.

    The same class as the embedded stores raise (a subclass of it), so one
    `except` serves every store.
    """

    @classmethod
    def from_detail(cls, detail: str | None) -> ReadSetConflictError:
        # The insert function puts "<id> <read version> <current version>" in DETAIL.
        text, read_version, current = (detail or "? 0 0").rsplit(" ", 2)
        originator_id: UUID | str
        try:
            originator_id = UUID(text)
        except ValueError:
            originator_id = text
        return cls(originator_id, int(read_version), int(current))


def translate(exc: BaseException, *, broken: bool = False) -> PersistenceError | None:
    """The persistence error for a driver error, or None if it is not one.

    `broken`: the call left its connection unusable (it was closed, or dropped
    because asyncpg's protocol state can no longer be trusted). A client-side
    error on such a connection means the connection was lost under the call.
    """
    if isinstance(exc, PersistenceError):
        return exc
    message = str(exc) or type(exc).__name__
    if isinstance(exc, driver.PostgresError):
        return _from_sqlstate(driver.sqlstate(exc) or "", message, exc)
    if isinstance(exc, ConnectionError):
        return ConnectionLostError(message)
    if isinstance(exc, asyncio.TimeoutError | TimeoutError) and broken:
        # asyncpg's command timeout: the server's answer did not come in time.
        return ConnectionLostError("PostgreSQL did not answer in time; the connection was closed")
    if isinstance(exc, driver.ClientDataError):
        return DataError(message)
    if isinstance(exc, driver.ClientInterfaceError | driver.InternalClientError):
        if broken:
            return ConnectionLostError(f"the connection to PostgreSQL broke: {message}")
        return InterfaceError(message)
    return None


def _from_sqlstate(code: str, message: str, exc: BaseException) -> PersistenceError:
    if code == READ_SET_CONFLICT_SQLSTATE:
        return ReadSetConflictError.from_detail(getattr(exc, "detail", None))
    if code == "55P03":
        return LockTimeoutError(message)
    if code == "57014":
        return StatementTimeoutError(message)
    if code in _RETRYABLE_SQLSTATES:
        return RetryableError(message)
    if code == driver.READ_ONLY_SQLSTATE:
        return ReadOnlyServerError(message)
    if code in _CONNECTION_GONE_SQLSTATES or code.startswith("08"):
        return ConnectionLostError(message)
    error_class = _BY_CLASS.get(code[:2], DatabaseError)
    return error_class(message)


_BY_CLASS: dict[str, type[PersistenceError]] = {
    "0A": NotSupportedError,
    "22": DataError,
    "23": IntegrityError,
    "25": InternalError,
    "2D": InternalError,
    "3B": InternalError,
    "40": InternalError,
    "42": ProgrammingError,
    "53": OperationalError,
    "54": OperationalError,
    "55": OperationalError,
    "57": OperationalError,
    "58": OperationalError,
    "XX": InternalError,
}


def connect_error(exc: BaseException, address: str) -> StoreConnectionError:
    """The error for a failure to open a connection, naming the server (or servers)."""
    code = driver.sqlstate(exc)
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return StoreUnavailableError(address, "timed out")
    if isinstance(exc, ConnectionRefusedError):
        return StoreUnavailableError(address, "connection refused")
    if isinstance(exc, driver.NoServerMatchedError):
        # Every server answered, none as target_session_attrs asks: during a failover, the
        # primary is gone and no standby has been promoted yet.
        return StoreUnavailableError(
            address, "none of them is a server target_session_attrs asks for (a failover?)"
        )
    if code in _UNAVAILABLE_SQLSTATES or (code is None and isinstance(exc, OSError)):
        return StoreUnavailableError(address, str(exc) or type(exc).__name__)
    return StoreConnectionError(address, str(exc) or type(exc).__name__)
