"""The POSTGRES_* settings, read from the environment as eventsourcing.postgres reads them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar, cast

from eventsourcing.utils import Environment, resolve_topic, strtobool

from application.postgres_url import PostgresUrlError, parse_postgres_url
from infrastructure.postgres.sql import check_identifier

OriginatorIdType = Literal["uuid", "text"]
# Seconds past the statement timeout after which the client stops waiting for an answer.
COMMAND_TIMEOUT_MARGIN = 2.0
N = TypeVar("N", int, float)

# A libpq URL, passed to the driver whole (one host or several); with it, the driver takes
# the database, hosts, ports, user and password from the URL, not from the variables below
# (POSTGRES_GET_PASSWORD_TOPIC still gives the password when set).
POSTGRES_DSN = "POSTGRES_DSN"
POSTGRES_DBNAME = "POSTGRES_DBNAME"
POSTGRES_HOST = "POSTGRES_HOST"
POSTGRES_PORT = "POSTGRES_PORT"
POSTGRES_USER = "POSTGRES_USER"
POSTGRES_PASSWORD = "POSTGRES_PASSWORD"
POSTGRES_GET_PASSWORD_TOPIC = "POSTGRES_GET_PASSWORD_TOPIC"
POSTGRES_CONNECT_TIMEOUT = "POSTGRES_CONNECT_TIMEOUT"
POSTGRES_CONN_MAX_AGE = "POSTGRES_CONN_MAX_AGE"
POSTGRES_PRE_PING = "POSTGRES_PRE_PING"
POSTGRES_MAX_WAITING = "POSTGRES_MAX_WAITING"
POSTGRES_LOCK_TIMEOUT = "POSTGRES_LOCK_TIMEOUT"
POSTGRES_STATEMENT_TIMEOUT = "POSTGRES_STATEMENT_TIMEOUT"
POSTGRES_POOL_SIZE = "POSTGRES_POOL_SIZE"
POSTGRES_MAX_OVERFLOW = "POSTGRES_MAX_OVERFLOW"
POSTGRES_IDLE_IN_TRANSACTION_SESSION_TIMEOUT = "POSTGRES_IDLE_IN_TRANSACTION_SESSION_TIMEOUT"
POSTGRES_SCHEMA = "POSTGRES_SCHEMA"
POSTGRES_SINGLE_ROW_TRACKING = "SINGLE_ROW_TRACKING"
ORIGINATOR_ID_TYPE = "ORIGINATOR_ID_TYPE"
POSTGRES_ENABLE_DB_FUNCTIONS = "POSTGRES_ENABLE_DB_FUNCTIONS"
POSTGRES_APPLICATION_NAME = "POSTGRES_APPLICATION_NAME"


@dataclass(frozen=True)
class PostgresSettings:
    dbname: str
    host: str
    port: int
    user: str
    password: str = ""
    get_password: Callable[[], str] | None = None
    schema: str = "public"
    connect_timeout: float = 30.0
    conn_max_age: float = 60 * 60.0
    pre_ping: bool = False
    max_waiting: int = 0
    lock_timeout: int = 0
    statement_timeout: int = 0
    pool_size: int = 5
    max_overflow: int = 10
    idle_in_transaction_session_timeout: int = 5
    originator_id_type: OriginatorIdType = "uuid"
    max_idle: float = 10 * 60.0
    application_name: str = "sluice"
    dsn: str = ""
    # The servers, for messages: host:port, or those of the URL.
    address: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "schema", self.schema.strip() or "public")
        if not self.address:
            object.__setattr__(self, "address", f"{self.host}:{self.port}")
        check_identifier(self.schema)
        if self.originator_id_type not in ("uuid", "text"):
            msg = (
                f"Invalid originator_id_type '{self.originator_id_type}', must be 'uuid' or 'text'"
            )
            raise ValueError(msg)
        if self.lock_timeout < 0 or self.statement_timeout < 0:
            msg = "POSTGRES_LOCK_TIMEOUT and POSTGRES_STATEMENT_TIMEOUT must not be negative"
            raise ValueError(msg)
        if self.pool_size < 1 or self.max_overflow < 0:
            msg = "POSTGRES_POOL_SIZE must be at least 1 and POSTGRES_MAX_OVERFLOW not negative"
            raise ValueError(msg)

    @property
    def max_size(self) -> int:
        return self.pool_size + self.max_overflow

    @property
    def command_timeout(self) -> float | None:
        """How long a call waits for the server's answer, client side (None: forever).

        The statement timeout is enforced by the server, so it cannot end a wait on a
        link that went silent (no reset, no end of file): the answer simply never comes.
        The client therefore gives up a little after the server would have.
        """
        if not self.statement_timeout:
            return None
        return self.statement_timeout + COMMAND_TIMEOUT_MARGIN

    def server_settings(self) -> dict[str, str]:
        # Sent in the startup packet, so they cost no round trip; the lock
        # timeout thus covers the insert lock without a SET LOCAL per insert.
        return {
            "application_name": self.application_name,
            # The read-set check relies on a fresh snapshot after the insert
            # lock; a server default of REPEATABLE READ would take it before.
            "default_transaction_isolation": "read committed",
            "lock_timeout": f"{self.lock_timeout}s",
            "statement_timeout": f"{self.statement_timeout}s",
            "idle_in_transaction_session_timeout": (f"{self.idle_in_transaction_session_timeout}s"),
        }

    @classmethod
    def from_env(cls, env: Environment) -> PostgresSettings:
        dsn = env.get(POSTGRES_DSN) or ""
        get_password: Callable[[], str] | None = None
        password = ""
        topic = env.get(POSTGRES_GET_PASSWORD_TOPIC)
        if topic:
            get_password = resolve_topic(topic)
        if dsn:
            try:
                url = parse_postgres_url(dsn, writes=False)
            except PostgresUrlError as problem:
                msg = f"Postgres URL in environment with key '{POSTGRES_DSN}': {problem}"
                raise OSError(msg) from None
            dbname, host, port, user = url.dbname, "", 0, ""
            address = url.address
            # The password is the URL's (or libpq's PGPASSWORD, ~/.pgpass), unless a function
            # gives it: POSTGRES_PASSWORD, meant for the POSTGRES_HOST way, is not read.
        else:
            dbname = _required(env, POSTGRES_DBNAME, "database name")
            host = _required(env, POSTGRES_HOST, "host")
            port = _number(env, POSTGRES_PORT, 5432, int, "an integer")
            user = _required(env, POSTGRES_USER, "user")
            address = f"{host}:{port}"
            if not topic:
                password = _required(env, POSTGRES_PASSWORD, "password")
        if not strtobool(env.get(POSTGRES_SINGLE_ROW_TRACKING, "t")):
            msg = (
                f"{POSTGRES_SINGLE_ROW_TRACKING}=false (legacy multi-row tracking) "
                "is not supported by infrastructure.postgres"
            )
            raise OSError(msg)
        id_type = env.get(ORIGINATOR_ID_TYPE, "uuid").lower()
        if id_type not in ("uuid", "text"):
            msg = f"Invalid {ORIGINATOR_ID_TYPE} '{id_type}', must be 'uuid' or 'text'"
            raise OSError(msg)
        return cls(
            dbname=dbname,
            host=host,
            port=port,
            user=user,
            password=password,
            get_password=get_password,
            schema=env.get(POSTGRES_SCHEMA) or "",
            connect_timeout=_number(env, POSTGRES_CONNECT_TIMEOUT, 30, int, "an integer"),
            conn_max_age=_number(env, POSTGRES_CONN_MAX_AGE, 60 * 60.0, float, "a float"),
            pre_ping=strtobool(env.get(POSTGRES_PRE_PING) or "no"),
            max_waiting=_number(env, POSTGRES_MAX_WAITING, 0, int, "an integer"),
            lock_timeout=_number(env, POSTGRES_LOCK_TIMEOUT, 0, int, "an integer"),
            statement_timeout=_number(env, POSTGRES_STATEMENT_TIMEOUT, 0, int, "an integer"),
            pool_size=_number(env, POSTGRES_POOL_SIZE, 5, int, "an integer"),
            max_overflow=_number(env, POSTGRES_MAX_OVERFLOW, 10, int, "an integer"),
            idle_in_transaction_session_timeout=_number(
                env, POSTGRES_IDLE_IN_TRANSACTION_SESSION_TIMEOUT, 5, int, "an integer"
            ),
            originator_id_type=cast(OriginatorIdType, id_type),
            application_name=env.get(POSTGRES_APPLICATION_NAME) or "sluice",
            dsn=dsn,
            address=address,
        )


def _required(env: Environment, key: str, what: str) -> str:
    value = env.get(key)
    if value is None:
        msg = f"Postgres {what} not found in environment with key '{key}'"
        raise OSError(msg)
    return value


def _number(env: Environment, key: str, default: N, kind: Callable[[str], N], what: str) -> N:
    text = env.get(key)
    if not text:
        return default
    try:
        return kind(text)
    except ValueError:
        msg = (
            f"Postgres environment value for key '{key}' is invalid. "
            f"If set, {what} or empty string is expected: '{text}'"
        )
        raise OSError(msg) from None
