"""Helpers for the Postgres tests: the server under test and a schema per test."""

from __future__ import annotations

import functools
import gc
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from urllib.parse import unquote, urlsplit, urlunsplit

import psycopg

from infrastructure.postgres import AsyncpgDatastore, PostgresSettings

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def database_url() -> str:
    return os.environ.get("SLUICE_TEST_DATABASE_URL") or DEFAULT_URL


@functools.cache
def base_settings() -> PostgresSettings:
    parts = urlsplit(database_url())
    return PostgresSettings(
        dbname=unquote(parts.path.lstrip("/")) or "postgres",
        host=parts.hostname or "127.0.0.1",
        port=parts.port or 5432,
        user=unquote(parts.username or "postgres"),
        password=unquote(parts.password or ""),
        connect_timeout=5,
    )


def settings(schema: str, **changes: object) -> PostgresSettings:
    return replace(base_settings(), schema=schema, **changes)  # type: ignore[arg-type]


def env_for(schema: str) -> dict[str, str]:
    """The POSTGRES_* variables that select this server and schema."""
    s = base_settings()
    return {
        "PERSISTENCE_MODULE": "infrastructure.postgres",
        "POSTGRES_DBNAME": s.dbname,
        "POSTGRES_HOST": s.host,
        "POSTGRES_PORT": str(s.port),
        "POSTGRES_USER": s.user,
        "POSTGRES_PASSWORD": s.password,
        "POSTGRES_SCHEMA": schema,
    }


@functools.cache
def server_problem() -> str | None:
    """Why the server cannot be used, or None when it answers."""
    try:
        with admin_connection() as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        s = base_settings()
        return f"{s.host}:{s.port} did not answer ({str(exc).strip().splitlines()[0]})"
    return None


@contextmanager
def admin_connection() -> Iterator[psycopg.Connection]:
    s = base_settings()
    with psycopg.connect(
        host=s.host,
        port=s.port,
        dbname=s.dbname,
        user=s.user,
        password=s.password or None,
        connect_timeout=5,
        autocommit=True,
        application_name="sluice-tests",
    ) as conn:
        yield conn


def create_schema() -> str:
    schema = f"test_{uuid.uuid4().hex[:16]}"
    with admin_connection() as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    return schema


def drop_schema(schema: str) -> None:
    # Datastores that a test did not close (an Application it built, say)
    # still hold connections: collect them first so they close.
    gc.collect()
    with admin_connection() as conn:
        conn.execute("SET lock_timeout = '10s'")
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@contextmanager
def database_sorting_as(icu_locale: str) -> Iterator[str]:
    """The URL of a new database whose text sorts by an ICU locale, e.g. en-US (the official
    image's databases sort as en_US too), dropped afterwards."""
    name = f"test_{uuid.uuid4().hex[:16]}"
    with admin_connection() as conn:
        conn.execute(
            f'CREATE DATABASE "{name}" TEMPLATE template0 LOCALE_PROVIDER icu '
            f"ICU_LOCALE '{icu_locale}' LOCALE 'C.UTF-8'"
        )
    try:
        yield urlunsplit(urlsplit(database_url())._replace(path=f"/{name}"))
    finally:
        gc.collect()
        with admin_connection() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def datastore(schema: str, **changes: object) -> AsyncpgDatastore:
    return AsyncpgDatastore(settings(schema, **changes))
