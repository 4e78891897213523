"""Translate SLUICE_DATABASE_URL into the environment eventsourcing reads.

The application never imports a persistence module: eventsourcing loads the one named
by PERSISTENCE_MODULE, so the adapters in ``infrastructure`` stay outside this layer.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

DATABASE_URL_VARIABLE = "SLUICE_DATABASE_URL"
SUPPORTED = "sqlite:///ABSOLUTE/PATH.db, memory:// or postgresql://USER@HOST:PORT/DBNAME"


class StoreConfigError(ValueError):
    """SLUICE_DATABASE_URL names no store Sluice can open."""


def default_database_url(root: Path | None = None) -> str:
    """The embedded default: a SQLite file under ./var/."""
    base = (root or Path.cwd()) / "var" / "sluice.db"
    return f"sqlite://{base.resolve()}"


def redacted(database_url: str) -> str:
    """The URL without its password, to print or log."""
    parts = urlsplit(database_url)
    if not parts.password:
        return database_url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def eventsourcing_env(database_url: str) -> dict[str, str]:
    """The eventsourcing environment for a database URL, or a StoreConfigError naming it."""
    parts = urlsplit(database_url)
    scheme = parts.scheme.lower()
    if scheme == "memory":
        return {"PERSISTENCE_MODULE": "infrastructure.popo"}
    if scheme == "sqlite":
        return _sqlite_env(database_url, parts.path)
    if scheme in {"postgresql", "postgres"}:
        return _postgres_env(database_url)
    raise StoreConfigError(
        f"{DATABASE_URL_VARIABLE} {database_url!r}: unsupported scheme {scheme or '(none)'!r}; "
        f"use {SUPPORTED}"
    )


def _sqlite_env(database_url: str, path: str) -> dict[str, str]:
    if not path.startswith("/") or path == "/":
        raise StoreConfigError(
            f"{DATABASE_URL_VARIABLE} {database_url!r}: a SQLite URL needs an absolute path, "
            "as in sqlite:////home/me/sluice.db"
        )
    # sqlite:///tmp/x.db and sqlite:////tmp/x.db both name /tmp/x.db.
    database = Path("/" + unquote(path).lstrip("/"))
    if not database.parent.is_dir():
        raise StoreConfigError(
            f"{DATABASE_URL_VARIABLE} {database_url!r}: directory {database.parent} does not exist"
        )
    return {"PERSISTENCE_MODULE": "infrastructure.sqlite", "SQLITE_DBNAME": str(database)}


def _postgres_env(database_url: str) -> dict[str, str]:
    parts = urlsplit(database_url)
    dbname = unquote(parts.path.lstrip("/"))
    if not dbname:
        raise StoreConfigError(
            f"{DATABASE_URL_VARIABLE} {database_url!r}: a PostgreSQL URL needs a database name"
        )
    env = {
        "PERSISTENCE_MODULE": "infrastructure.postgres",
        "POSTGRES_DBNAME": dbname,
        "POSTGRES_HOST": parts.hostname or "127.0.0.1",
        "POSTGRES_PORT": str(parts.port or 5432),
        "POSTGRES_USER": unquote(parts.username or "postgres"),
        "POSTGRES_PASSWORD": unquote(parts.password or ""),
    }
    query = parse_qs(parts.query)
    if "schema" in query:
        env["POSTGRES_SCHEMA"] = query["schema"][-1]
    return env
