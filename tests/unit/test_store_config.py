"""SLUICE_DATABASE_URL picks the store; a URL Sluice cannot open is refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from application.settings_error import SettingsError
from application.store_config import (
    POSTGRES_WAITS,
    SQLITE_WAITS,
    default_database_url,
    eventsourcing_env,
    standby_env,
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
    # The URL goes to the driver whole, without Sluice's own `schema` parameter.
    assert eventsourcing_env(url, NONE_SET) == {
        "PERSISTENCE_MODULE": "infrastructure.postgres",
        "POSTGRES_DSN": "postgresql://sluice:s3cret@db.local:6543/bank",
        "POSTGRES_SCHEMA": "live",
        "POSTGRES_LOCK_TIMEOUT": "3",
        "POSTGRES_STATEMENT_TIMEOUT": "5",
        "POSTGRES_CONNECT_TIMEOUT": "5",
    }


def test_a_multi_host_url_is_passed_on_whole() -> None:
    url = (
        "postgresql://sluice@db1:5433,db2:5434,[::1]:5435/bank"
        "?sslmode=prefer&schema=live&target_session_attrs=read-write"
    )
    env = eventsourcing_env(url, NONE_SET)
    assert env["POSTGRES_DSN"] == (
        "postgresql://sluice@db1:5433,db2:5434,[::1]:5435/bank"
        "?sslmode=prefer&target_session_attrs=read-write"
    )
    assert env["POSTGRES_SCHEMA"] == "live"


def test_the_read_url_names_a_standby_in_the_primary_schema() -> None:
    primary = (
        "postgresql://sluice@db1:5432,db2:5432/bank?schema=live&target_session_attrs=read-write"
    )
    standby = standby_env("postgresql://sluice@db2:5432/bank", primary, NONE_SET)
    assert standby["POSTGRES_DSN"] == "postgresql://sluice@db2:5432/bank"
    assert standby["POSTGRES_SCHEMA"] == "live"
    # Any server may serve reads: a standby, or whichever of several answers.
    either = "postgresql://sluice@db1,db2/bank?target_session_attrs=prefer-standby"
    assert standby_env(either, primary, NONE_SET)["POSTGRES_DSN"] == either
    with pytest.raises(SettingsError, match="schema 'other' is not the primary's"):
        standby_env("postgresql://sluice@db2/bank?schema=other", primary, NONE_SET)


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
        ("postgresql://h:99999/db", "port '99999' of host 1 is not a number from 1 to 65535"),
        ("postgresql://h1,:5432/db?target_session_attrs=read-write", "host 2 has no name"),
        ("postgresql://h1,h2/db", "with several hosts, add target_session_attrs=read-write"),
        ("postgresql://h1,h2/db?target_session_attrs=any", "add target_session_attrs=read-write"),
        ("postgresql://h/db?target_session_attrs=read-only", "writes need a server that accepts"),
        ("postgresql://h/db?target_session_attrs=rw", "target_session_attrs 'rw' is not one of"),
    ],
)
def test_a_url_sluice_cannot_open_is_refused_naming_it(url: str, reason: str) -> None:
    with pytest.raises(SettingsError) as refused:
        eventsourcing_env(url)

    assert str(refused.value).startswith(f"SLUICE_DATABASE_URL {url!r}: ")
    assert reason in str(refused.value)
