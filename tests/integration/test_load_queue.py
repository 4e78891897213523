"""Loads of one aggregate queue behind each other (the cache's fast-forward lock), but not
for long: with the events table locked, each fails within the lock timeout and a second."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest
from eventsourcing.persistence import OperationalError

from application.ledger import Ledger
from application.repository import LOAD_QUEUE_SECONDS
from application.store_config import POSTGRES_WAITS, eventsourcing_env
from domain.account import Account
from tests.postgres import support
from tests.stores import postgres_url

LOCK_SECONDS = int(POSTGRES_WAITS["POSTGRES_LOCK_TIMEOUT"])


@pytest.mark.postgres
def test_concurrent_loads_of_one_account_each_give_up_in_time(schema: str) -> None:
    with Ledger(env=eventsourcing_env(postgres_url(schema), {})) as ledger:
        alice = Account(account="alice", owner="Alice")
        alice.deposit(Decimal("10"), "first")
        ledger.save(alice)
        ledger.load_keyed(
            Account, "alice"
        )  # now cached: later loads fast-forward it under its lock

        def load() -> tuple[str, float]:
            started = time.monotonic()
            try:
                ledger.load_keyed(Account, "alice")
            except OperationalError as error:
                return type(error).__name__, time.monotonic() - started
            return "loaded", time.monotonic() - started

        with (
            ThreadPoolExecutor(4) as pool,
            support.admin_connection() as holder,
            holder.transaction(),
        ):
            holder.execute(f'LOCK TABLE "{schema}"."ledger_events" IN ACCESS EXCLUSIVE MODE')
            outcomes = list(pool.map(lambda _: load(), range(4)))

        assert {kind for kind, _ in outcomes} <= {"LockTimeoutError", "LoadQueueTimeoutError"}
        # Unbounded, the fourth would have waited four lock timeouts, one after the other.
        assert max(seconds for _, seconds in outcomes) < LOCK_SECONDS + LOAD_QUEUE_SECONDS + 1
        assert ledger.load_keyed(Account, "alice").balance == Decimal("10")
