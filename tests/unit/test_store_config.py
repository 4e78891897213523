"""SLUICE_DATABASE_URL picks the store; a URL Sluice cannot open is refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from application.store_config import (
    POSTGRES_WAITS,
    SQLITE_WAITS,
    StoreConfigError,
    default_database_url,
    eventsourcing_env,
)

NONE_SET: dict[str, str] = {}


def test_sqlite_urls_name_the_guarded_sqlite_module_and_the_file(tmp_path: Path) -> None:
    expected = {
        "PERSISTENCE_MODULE": "infrastructure.sqlite",
        "SQLITE_DBNAME": f"{tmp_path}/ledger.db",
        "SQLITE_LOCK_TIMEOUT": "3",
    }

    assert eventsourcing_env(f"sqlite:///{tmp_path}/ledger.db", NONE_SET) == expected


def test_three_slashes_name_a_file_relative_to_the_current_folder_and_four_an_absolute_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "var").mkdir()
    monkeypatch.chdir(tmp_path)

    relative = eventsourcing_env("sqlite:///var/ledger.db", NONE_SET)
    absolute = eventsourcing_env(f"sqlite:///{tmp_path}/var/ledger.db", NONE_SET)

    assert relative["SQLITE_DBNAME"] == str(tmp_path.resolve() / "var" / "ledger.db")
    assert absolute["SQLITE_DBNAME"] == relative["SQLITE_DBNAME"]
    # Not /relative.db at the root of the file system: the one beside the command.
    assert eventsourcing_env("sqlite:///relative.db", NONE_SET)["SQLITE_DBNAME"] == str(
        tmp_path.resolve() / "relative.db"
    )


def test_memory_and_postgres_urls() -> None:
    assert eventsourcing_env("memory://") == {"PERSISTENCE_MODULE": "infrastructure.popo"}
    url = "postgresql://sluice:s3cret@db.local:6543/bank?schema=live"
    assert eventsourcing_env(url, NONE_SET) == {
        "PERSISTENCE_MODULE": "infrastructure.postgres",
        "POSTGRES_DBNAME": "bank",
        "POSTGRES_HOST": "db.local",
        "POSTGRES_PORT": "6543",
        "POSTGRES_USER": "sluice",
        "POSTGRES_PASSWORD": "s3cret",
        "POSTGRES_SCHEMA": "live",
        "POSTGRES_LOCK_TIMEOUT": "3",
        "POSTGRES_STATEMENT_TIMEOUT": "5",
        "POSTGRES_CONNECT_TIMEOUT": "5",
    }


def test_waits_are_bounded_unless_the_environment_says_otherwise(tmp_path: Path) -> None:
    assert set(POSTGRES_WAITS) == {
        "POSTGRES_LOCK_TIMEOUT",
        "POSTGRES_STATEMENT_TIMEOUT",
        "POSTGRES_CONNECT_TIMEOUT",
    }
    assert all(
        0 < int(seconds) <= 5 for seconds in [*POSTGRES_WAITS.values(), *SQLITE_WAITS.values()]
    )
    # eventsourcing lets the environment given to an application win over the process's
    # own, so a variable the operator set is left out rather than overridden.
    chosen = {"POSTGRES_LOCK_TIMEOUT": "0", "SQLITE_LOCK_TIMEOUT": "20"}
    postgres = eventsourcing_env("postgresql://db.local/bank", chosen)
    assert "POSTGRES_LOCK_TIMEOUT" not in postgres
    assert postgres["POSTGRES_STATEMENT_TIMEOUT"] == "5"
    assert "SQLITE_LOCK_TIMEOUT" not in eventsourcing_env(f"sqlite:///{tmp_path}/l.db", chosen)


def test_the_default_is_a_sqlite_file_under_var(tmp_path: Path) -> None:
    assert default_database_url(tmp_path) == f"sqlite:///{tmp_path.resolve()}/var/sluice.db"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("mysql://localhost/bank", "unsupported scheme 'mysql'"),
        ("ledger.db", "unsupported scheme '(none)'"),
        ("sqlite://relative.db", "a SQLite URL names its file after three slashes"),
        ("sqlite:///", "a SQLite URL names its file after three slashes"),
        ("sqlite:////no/such/dir/ledger.db", "directory /no/such/dir does not exist"),
        ("postgresql://localhost", "a PostgreSQL URL needs a database name"),
    ],
)
def test_a_url_sluice_cannot_open_is_refused_naming_it(url: str, reason: str) -> None:
    with pytest.raises(StoreConfigError) as refused:
        eventsourcing_env(url)

    assert str(refused.value).startswith(f"SLUICE_DATABASE_URL {url!r}: ")
    assert reason in str(refused.value)
