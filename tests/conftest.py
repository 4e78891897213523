"""Shared fixtures: real stores (in memory and SQLite), the real sandbox, the bank catalog."""

from __future__ import annotations

import gc
import os
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from application.bank import BANK_USE_CASES, DIRECTORY_HEADER
from application.ledger import Ledger
from application.store_config import eventsourcing_env
from domain.account import Account
from gateway.core.catalog import Catalog
from gateway.core.policy.caps import Caps
from gateway.core.program.limits import ProgramLimits
from gateway.core.program.runner import ProgramRunner
from gateway.core.program.sandbox import Sandbox
from tests.direct import seed_demo
from tests.postgres import support
from tests.stores import empty_store

NO_SERVER = "PostgreSQL tests skipped"


@pytest.fixture(autouse=True)
def _require_postgres(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("postgres") is None:
        return
    problem = support.server_problem()
    if problem is None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and PostgreSQL is required: {problem}", pytrace=False)
    pytest.skip(f"{NO_SERVER}: {problem}; set SLUICE_TEST_DATABASE_URL")


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, object, object]:
    # What collection builds (the modules, their imports, every test item) lives to the end
    # of the session, so the collector is off while it is built, then stops looking at it:
    # each full collection afterwards (one per Postgres schema dropped, see
    # tests/postgres/support.py) scans only what the tests made, not some 400,000 objects
    # that cannot be garbage.
    del session
    gc.disable()
    try:
        return (yield)
    finally:
        gc.freeze()
        gc.enable()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    # pytest reports a skip at each test's own line, which would print one
    # line per test; one shared location folds them into a single notice.
    longrepr = report.longrepr
    if report.skipped and isinstance(longrepr, tuple) and NO_SERVER in longrepr[2]:
        report.longrepr = ("tests/conftest.py", 1, longrepr[2])
    return report


@pytest.fixture
def schema() -> Iterator[str]:
    """A fresh schema, dropped after the test."""
    name = support.create_schema()
    yield name
    support.drop_schema(name)


# Tight enough that a runaway program is stopped quickly in tests.
TEST_LIMITS = ProgramLimits(wall_seconds=1.0, max_memory_bytes=16 * 2**20)
TEST_CAPS = Caps(
    max_run_seconds=TEST_LIMITS.wall_seconds, max_memory_bytes=TEST_LIMITS.max_memory_bytes
)


@dataclass
class Clock:
    """A wall clock that moves only when a test says so."""

    now: datetime

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 11, 29, 12, 0, tzinfo=UTC))


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return Catalog(DIRECTORY_HEADER, BANK_USE_CASES)


@pytest.fixture(scope="session")
def sandbox() -> Iterator[Sandbox]:
    pool = Sandbox(TEST_LIMITS)
    yield pool
    pool.close()


STORES = ["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=STORES)
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Ledger]:
    """An empty ledger on each store: in memory, SQLite and Postgres."""
    with empty_store(request.param, tmp_path) as url, Ledger(env=eventsourcing_env(url)) as opened:
        yield opened


@pytest.fixture
def demo_ledger(ledger: Ledger) -> Ledger:
    """alice 100.00, bob 0.00, carla 0.00."""
    seed_demo(ledger)
    return ledger


@pytest.fixture
def runner(demo_ledger: Ledger, catalog: Catalog, sandbox: Sandbox) -> ProgramRunner:
    return ProgramRunner(demo_ledger, catalog, sandbox, TEST_LIMITS)


def balances(ledger: Ledger) -> dict[str, Decimal]:
    return {name: ledger.load_keyed(Account, name).balance for name in ledger.keys_in_log(Account)}


def store_state(ledger: Ledger) -> tuple[int | None, dict[str, Decimal]]:
    """What a refusal must leave untouched: the log's length and every balance."""
    return ledger.recorder.max_notification_id(), balances(ledger)
