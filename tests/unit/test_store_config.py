"""SLUICE_DATABASE_URL picks the store; a URL Sluice cannot open is refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from application.store_config import StoreConfigError, default_database_url, eventsourcing_env


def test_sqlite_urls_name_the_guarded_sqlite_module_and_the_file(tmp_path: Path) -> None:
    expected = {
        "PERSISTENCE_MODULE": "infrastructure.sqlite",
        "SQLITE_DBNAME": f"{tmp_path}/ledger.db",
    }

    assert eventsourcing_env(f"sqlite://{tmp_path}/ledger.db") == expected
    assert eventsourcing_env(f"sqlite:///{tmp_path}/ledger.db") == expected


def test_memory_and_postgres_urls() -> None:
    assert eventsourcing_env("memory://") == {"PERSISTENCE_MODULE": "infrastructure.popo"}
    assert eventsourcing_env("postgresql://sluice:s3cret@db.local:6543/bank?schema=live") == {
        "PERSISTENCE_MODULE": "infrastructure.postgres",
        "POSTGRES_DBNAME": "bank",
        "POSTGRES_HOST": "db.local",
        "POSTGRES_PORT": "6543",
        "POSTGRES_USER": "sluice",
        "POSTGRES_PASSWORD": "s3cret",
        "POSTGRES_SCHEMA": "live",
    }


def test_the_default_is_a_sqlite_file_under_var(tmp_path: Path) -> None:
    assert default_database_url(tmp_path) == f"sqlite://{tmp_path.resolve()}/var/sluice.db"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("mysql://localhost/bank", "unsupported scheme 'mysql'"),
        ("ledger.db", "unsupported scheme '(none)'"),
        ("sqlite://relative.db", "a SQLite URL needs an absolute path"),
        ("sqlite:////no/such/dir/ledger.db", "directory /no/such/dir does not exist"),
        ("postgresql://localhost", "a PostgreSQL URL needs a database name"),
    ],
)
def test_a_url_sluice_cannot_open_is_refused_naming_it(url: str, reason: str) -> None:
    with pytest.raises(StoreConfigError) as refused:
        eventsourcing_env(url)

    assert str(refused.value).startswith(f"SLUICE_DATABASE_URL {url!r}: ")
    assert reason in str(refused.value)
