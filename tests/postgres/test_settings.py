"""The POSTGRES_* variables are read as eventsourcing.postgres reads them (no server needed)."""

from __future__ import annotations

import pytest
from eventsourcing.persistence import InfrastructureFactory
from eventsourcing.postgres import PostgresFactory
from eventsourcing.utils import Environment

from infrastructure.postgres import AsyncpgFactory, PostgresSettings

BASE = {
    "POSTGRES_DBNAME": "sluice",
    "POSTGRES_HOST": "db.example",
    "POSTGRES_PORT": "5433",
    "POSTGRES_USER": "sluice",
    "POSTGRES_PASSWORD": "secret",
}


def settings(**extra: str) -> PostgresSettings:
    return PostgresSettings.from_env(Environment("Bank", {**BASE, **extra}))


def test_the_module_is_found_by_persistence_module_without_connecting() -> None:
    env = Environment("Bank", {**BASE, "PERSISTENCE_MODULE": "infrastructure.postgres"})
    factory = InfrastructureFactory.construct(env)
    assert type(factory) is AsyncpgFactory
    factory.close()


def test_defaults_are_those_of_eventsourcing_postgres() -> None:
    s = settings()
    assert (s.dbname, s.host, s.port, s.user, s.password) == (
        "sluice",
        "db.example",
        5433,
        "sluice",
        "secret",
    )
    assert (s.pool_size, s.max_overflow, s.max_waiting) == (5, 10, 0)
    assert (s.connect_timeout, s.lock_timeout, s.idle_in_transaction_session_timeout) == (30, 0, 5)
    assert (s.conn_max_age, s.pre_ping, s.schema, s.originator_id_type) == (
        3600.0,
        False,
        "public",
        "uuid",
    )


def test_prefixed_variables_win_as_in_eventsourcing() -> None:
    assert settings(BANK_POSTGRES_SCHEMA="bank", POSTGRES_SCHEMA="other").schema == "bank"


def test_the_password_may_come_from_a_function() -> None:
    s = settings(POSTGRES_GET_PASSWORD_TOPIC="getpass:getuser")
    assert s.get_password is not None


@pytest.mark.parametrize(
    "key",
    [
        "POSTGRES_CONNECT_TIMEOUT",
        "POSTGRES_CONN_MAX_AGE",
        "POSTGRES_MAX_WAITING",
        "POSTGRES_LOCK_TIMEOUT",
        "POSTGRES_POOL_SIZE",
        "POSTGRES_MAX_OVERFLOW",
        "POSTGRES_IDLE_IN_TRANSACTION_SESSION_TIMEOUT",
    ],
)
def test_a_bad_number_is_refused_with_the_same_message(key: str) -> None:
    env = {**BASE, key: "abc"}
    with pytest.raises(OSError, match="invalid") as theirs:
        PostgresFactory(Environment("Bank", env))
    with pytest.raises(OSError) as ours:
        AsyncpgFactory(Environment("Bank", env))
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(
    "key", ["POSTGRES_DBNAME", "POSTGRES_HOST", "POSTGRES_USER", "POSTGRES_PASSWORD"]
)
def test_a_missing_variable_is_refused_with_the_same_message(key: str) -> None:
    env = {k: v for k, v in BASE.items() if k != key}
    with pytest.raises(OSError) as theirs:
        PostgresFactory(Environment("Bank", env))
    with pytest.raises(OSError) as ours:
        AsyncpgFactory(Environment("Bank", env))
    assert str(ours.value) == str(theirs.value)


def test_what_is_not_supported_says_so() -> None:
    with pytest.raises(OSError, match="multi-row tracking"):
        settings(SINGLE_ROW_TRACKING="false")
    with pytest.raises(OSError, match="ORIGINATOR_ID_TYPE"):
        settings(ORIGINATOR_ID_TYPE="integer")


def test_the_statement_timeout_and_the_application_name_are_ours() -> None:
    s = settings(POSTGRES_STATEMENT_TIMEOUT="7", POSTGRES_APPLICATION_NAME="sluice-a")
    assert (s.statement_timeout, s.application_name) == (7, "sluice-a")
    assert s.server_settings()["statement_timeout"] == "7s"
    assert s.server_settings()["application_name"] == "sluice-a"
    assert (settings().statement_timeout, settings().application_name) == (0, "sluice")
    # The client stops waiting for an answer 2 s after the server would have given up.
    assert (s.command_timeout, settings().command_timeout) == (9.0, None)
    with pytest.raises(OSError, match=r"POSTGRES_STATEMENT_TIMEOUT.*invalid"):
        settings(POSTGRES_STATEMENT_TIMEOUT="soon")
    with pytest.raises(ValueError, match="must not be negative"):
        settings(POSTGRES_STATEMENT_TIMEOUT="-1")


def test_a_url_takes_the_place_of_the_server_variables() -> None:
    url = "postgresql://sluice:pw@db1:5433,db2:5434/bank?target_session_attrs=read-write"
    s = PostgresSettings.from_env(Environment("Bank", {"POSTGRES_DSN": url}))
    assert (s.dsn, s.dbname, s.address) == (url, "bank", "db1:5433,db2:5434")
    # The URL's password, not a POSTGRES_PASSWORD left in the environment.
    stray = Environment("Bank", {"POSTGRES_DSN": url, "POSTGRES_PASSWORD": "other"})
    assert PostgresSettings.from_env(stray).password == ""
    with pytest.raises(OSError, match=r"POSTGRES_DSN.*port 'x' of host 2"):
        PostgresSettings.from_env(Environment("Bank", {"POSTGRES_DSN": "postgresql://a,b:x/db"}))
