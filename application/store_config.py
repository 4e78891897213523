"""Translate SLUICE_DATABASE_URL (and SLUICE_READ_DATABASE_URL, a hot standby's) into the
environment eventsourcing reads.

The application never imports a persistence module: eventsourcing loads the one named
by PERSISTENCE_MODULE, so the adapters in ``infrastructure`` stay outside this layer.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote, urlsplit

from application.postgres_url import PostgresUrlError, parse_postgres_url
from application.settings_error import SettingsError

DATABASE_URL_VARIABLE = "SLUICE_DATABASE_URL"
# Optional: a hot standby of the primary, which the read endpoints read (the read models
# as it replays them); the same forms as a PostgreSQL SLUICE_DATABASE_URL.
READ_DATABASE_URL_VARIABLE = "SLUICE_READ_DATABASE_URL"
SUPPORTED = (
    "sqlite:///RELATIVE/PATH.db, sqlite:////ABSOLUTE/PATH.db, memory:// "
    "or postgresql://USER@HOST:PORT/DBNAME (several hosts: "
    "postgresql://USER@H1:P1,H2:P2/DBNAME?target_session_attrs=read-write)"
)
POSTGRES_SCHEMES = frozenset({"postgresql", "postgres"})

# How long a request may wait on the store before it is answered 503 with Retry-After
# (seconds). The persistence modules' own defaults wait forever for a lock or a statement:
# one table locked for 45 s then held every request, /health included, for 45 s. A value
# in the environment (POSTGRES_LOCK_TIMEOUT=0 turns the lock timeout off) wins.
POSTGRES_WAITS = {
    # The insert lock is held for one server function call: milliseconds.
    "POSTGRES_LOCK_TIMEOUT": "3",
    "POSTGRES_STATEMENT_TIMEOUT": "5",
    # To open a connection, and to wait for a free one from the pool.
    "POSTGRES_CONNECT_TIMEOUT": "5",
}
SQLITE_WAITS = {"SQLITE_LOCK_TIMEOUT": "3"}
_SECRET_PARAMETER = re.compile(r"(?i)^(password|passwd|sslpassword)=")


def default_database_url(root: Path | None = None) -> str:
    """The embedded default: a SQLite file under ./var/."""
    base = (root or Path.cwd()) / "var" / "sluice.db"
    return sqlite_url(base.resolve())


def sqlite_url(path: Path) -> str:
    """The URL of a SQLite file: `sqlite:///` then the path, so an absolute one has four
    slashes (as SQLAlchemy writes them)."""
    return f"sqlite:///{path}"


def sqlite_path(database_url: str) -> Path | None:
    """The file a sqlite URL names (relative to the current folder when the URL's path is),
    or None for another scheme; it does not check that the file or its folder exist."""
    parts = urlsplit(database_url)
    if parts.scheme.lower() != "sqlite" or parts.netloc or not parts.path.strip("/"):
        return None
    # sqlite:///relative.db names ./relative.db; sqlite:////abs.db names /abs.db.
    return (Path.cwd() / unquote(parts.path[1:])).resolve()


def redacted(database_url: str) -> str:
    """The URL without its password (in its user part, or a `password=` of its query), to
    print, log or quote in an error."""
    try:
        parts = urlsplit(database_url)
        password = parts.password
    except ValueError:  # not even a URL: keep nothing after its scheme that could be one
        return database_url.split("://", 1)[0] + "://***"
    shown = database_url
    if password:
        user, _, host = parts.netloc.rpartition("@")
        shown = shown.replace(parts.netloc, f"{user.split(':', 1)[0]}:***@{host}", 1)
    if parts.query:
        query = [
            item.split("=", 1)[0] + "=***" if _SECRET_PARAMETER.match(item) else item
            for item in parts.query.split("&")
        ]
        shown = shown.replace("?" + parts.query, "?" + "&".join(query), 1)
    return shown


def _named(database_url: str, variable: str = DATABASE_URL_VARIABLE) -> str:
    return f"{variable} {redacted(database_url)!r}"


def eventsourcing_env(
    database_url: str, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The eventsourcing environment for a database URL, or a SettingsError naming it.

    It holds Sluice's bounds on waits (POSTGRES_WAITS, SQLITE_WAITS) except those that
    `environ` (the process environment by default) sets: eventsourcing lets the
    environment given to an application win over the process's own.
    """
    given = os.environ if environ is None else environ
    parts = urlsplit(database_url)
    scheme = parts.scheme.lower()
    if scheme == "memory":
        return {"PERSISTENCE_MODULE": "infrastructure.popo"}
    if scheme == "sqlite":
        return _sqlite_env(database_url) | _unset(SQLITE_WAITS, given)
    if scheme in POSTGRES_SCHEMES:
        return _postgres_env(database_url, DATABASE_URL_VARIABLE) | _unset(POSTGRES_WAITS, given)
    raise SettingsError(
        f"{_named(database_url)}: unsupported scheme {scheme or '(none)'!r}; use {SUPPORTED}"
    )


def _unset(defaults: Mapping[str, str], environ: Mapping[str, str]) -> dict[str, str]:
    return {key: value for key, value in defaults.items() if key not in environ}


def _sqlite_env(database_url: str) -> dict[str, str]:
    database = sqlite_path(database_url)
    if database is None:
        raise SettingsError(
            f"{_named(database_url)}: a SQLite URL names its file after "
            "three slashes: sqlite:///var/sluice.db (relative to the current folder) or "
            "sqlite:////home/me/sluice.db (absolute)"
        )
    if not database.parent.is_dir():
        raise SettingsError(f"{_named(database_url)}: directory {database.parent} does not exist")
    return {"PERSISTENCE_MODULE": "infrastructure.sqlite", "SQLITE_DBNAME": str(database)}


def _postgres_env(database_url: str, variable: str, *, writes: bool = True) -> dict[str, str]:
    """The URL passed on whole (POSTGRES_DSN): the driver reads its hosts, user, password,
    database and parameters, so a multi-host URL keeps its meaning."""
    try:
        url = parse_postgres_url(database_url, writes=writes)
    except PostgresUrlError as problem:
        raise SettingsError(f"{_named(database_url, variable)}: {problem}") from None
    env = {"PERSISTENCE_MODULE": "infrastructure.postgres", "POSTGRES_DSN": url.dsn}
    if url.schema is not None:
        env["POSTGRES_SCHEMA"] = url.schema
    return env


def standby_env(
    read_url: str, database_url: str, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment of the read models' standby (SLUICE_READ_DATABASE_URL), or a
    SettingsError naming it: a PostgreSQL hot standby of the PostgreSQL primary that
    SLUICE_DATABASE_URL names, read in the same schema."""
    given = os.environ if environ is None else environ
    scheme = urlsplit(read_url).scheme.lower()
    if scheme not in POSTGRES_SCHEMES:
        raise SettingsError(
            f"{_named(read_url, READ_DATABASE_URL_VARIABLE)}: unsupported scheme "
            f"{scheme or '(none)'!r}; use postgresql://USER@HOST:PORT/DBNAME"
        )
    env = _postgres_env(read_url, READ_DATABASE_URL_VARIABLE, writes=False)
    primary = eventsourcing_env(database_url, given)
    if primary.get("PERSISTENCE_MODULE") != env["PERSISTENCE_MODULE"]:
        raise SettingsError(
            f"{_named(read_url, READ_DATABASE_URL_VARIABLE)}: it must name a hot standby "
            f"of the PostgreSQL server {DATABASE_URL_VARIABLE} names, and "
            f"{_named(database_url)} is not PostgreSQL"
        )
    schema = primary.get("POSTGRES_SCHEMA")
    if env.setdefault("POSTGRES_SCHEMA", schema or "") != (schema or ""):
        raise SettingsError(
            f"{_named(read_url, READ_DATABASE_URL_VARIABLE)}: schema "
            f"{env['POSTGRES_SCHEMA']!r} is not the primary's ({schema or 'public'!r}); "
            "a standby holds the primary's schemas, so leave schema out"
        )
    if not env["POSTGRES_SCHEMA"]:
        del env["POSTGRES_SCHEMA"]
    return env | _unset(POSTGRES_WAITS, given)
