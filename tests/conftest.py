"""Shared fixtures: real stores (in memory and SQLite), the real sandbox, the bank catalog."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from application.bank import BANK_USE_CASES, DIRECTORY_HEADER
from application.demo import seed_demo
from application.ledger import Ledger
from application.store_config import eventsourcing_env
from gateway.catalog import Catalog
from gateway.policy.caps import Caps
from gateway.program.limits import ProgramLimits
from gateway.program.runner import ProgramRunner
from gateway.program.sandbox import Sandbox

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


@pytest.fixture(params=["memory", "sqlite"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Ledger]:
    """An empty ledger on each embedded store."""
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'sluice.db'}"
    with Ledger(env=eventsourcing_env(url)) as opened:
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
    return {name: ledger.load_account(name).balance for name in ledger.account_names()}


def store_state(ledger: Ledger) -> tuple[int | None, dict[str, Decimal]]:
    """What a refusal must leave untouched: the log's length and every balance."""
    return ledger.recorder.max_notification_id(), balances(ledger)
