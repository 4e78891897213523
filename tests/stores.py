"""Empty stores of each kind, for tests and benchmarks."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.postgres import support


def postgres_url(schema: str) -> str:
    """A SLUICE_DATABASE_URL for the test server, in a schema of the caller's own."""
    return f"{support.database_url()}?schema={schema}"


@contextmanager
def empty_store(kind: str, folder: Path) -> Iterator[str]:
    """The URL of an empty store: memory, sqlite (a file in `folder`) or postgres (a schema)."""
    if kind == "memory":
        yield "memory://"
    elif kind == "sqlite":
        yield f"sqlite:///{folder / 'sluice.db'}"
    else:
        name = support.create_schema()
        try:
            yield postgres_url(name)
        finally:
            support.drop_schema(name)
