"""The rate counters of every store give the same answers (P6): the cap within any minute,
refusals not counted, the wait until the oldest admission leaves, one row per key however
long it runs, and, on a shared store, one cap for every process on it."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from application import principals
from application.ledger import Ledger
from application.rate_counter import RateCounter, open_rate_counter
from application.store_config import eventsourcing_env
from tests.postgres import support
from tests.stores import empty_store

START = 1_000_000.0  # a whole number of slots


@dataclass
class FakeTime:
    now: float = START

    def __call__(self) -> float:
        return self.now


@dataclass
class Store:
    kind: str
    url: str
    time: FakeTime
    stack: ExitStack

    def counter(self, name: str = "requests_per_minute") -> RateCounter:
        """A counter on this store, as another gateway process would open it."""
        return self.ledger_and_counter(name)[1]

    def ledger_and_counter(self, name: str = "requests_per_minute") -> tuple[Ledger, RateCounter]:
        ledger = self.stack.enter_context(Ledger(env=eventsourcing_env(self.url)))
        counter = open_rate_counter(ledger, name, self.time)
        self.stack.callback(counter.close)
        return ledger, counter

    def rows(self) -> int:
        if self.kind == "sqlite":
            with sqlite3.connect(self.url.removeprefix("sqlite:///")) as conn:
                return int(conn.execute("SELECT count(*) FROM rate_windows").fetchone()[0])
        schema = self.url.rpartition("schema=")[2]
        with psycopg.connect(support.database_url()) as conn:
            row = conn.execute(f'SELECT count(*) FROM "{schema}".rate_windows').fetchone()
            assert row is not None
            return int(row[0])


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    with ExitStack() as stack:
        url = stack.enter_context(empty_store(request.param, tmp_path))
        yield Store(request.param, url, FakeTime(), stack)


def admitted(counter: RateCounter, key: str, times: int, cap: int) -> list[bool]:
    return [counter.admit(key, cap) is None for _ in range(times)]


def test_the_cap_is_admitted_then_refused_with_the_wait(store: Store) -> None:
    counter = store.counter()

    assert admitted(counter, "alice", 3, cap=3) == [True] * 3
    wait = counter.admit("alice", 3)
    store.time.now += 30
    later = counter.admit("alice", 3)

    assert wait == pytest.approx(60.5)  # the slot of the first admission leaves the window
    assert later == pytest.approx(30.5)
    assert wait is not None
    assert 1 <= max(1, round(wait)) <= 60  # what Retry-After says


def test_refusals_are_not_counted(store: Store) -> None:
    counter = store.counter()
    assert admitted(counter, "alice", 2, cap=2) == [True, True]
    assert admitted(counter, "alice", 50, cap=2) == [False] * 50

    store.time.now += 61

    assert admitted(counter, "alice", 3, cap=2) == [True, True, False]


def test_the_window_slides(store: Store) -> None:
    counter = store.counter()
    assert admitted(counter, "alice", 2, cap=3) == [True, True]
    store.time.now += 30
    assert admitted(counter, "alice", 1, cap=3) == [True]

    store.time.now += 15  # 45 s after the first two: all three are within the minute
    refused = counter.admit("alice", 3)
    store.time.now += 15.5  # now the first two have left; the one of 30 s ago has not
    after = admitted(counter, "alice", 3, cap=3)
    wait = counter.admit("alice", 3)

    assert refused == pytest.approx(15.5)
    assert after == [True, True, False]
    assert wait == pytest.approx(30)  # when the one of 30.5 s ago leaves


def test_keys_and_caps_are_counted_apart(store: Store) -> None:
    requests, programs = store.counter("requests_per_minute"), store.counter("programs_per_minute")

    assert admitted(requests, "alice", 2, cap=1) == [True, False]
    assert admitted(requests, "bob", 1, cap=1) == [True]
    assert admitted(programs, "alice", 1, cap=1) == [True]


def test_a_clock_that_steps_back_still_counts(store: Store) -> None:
    counter = store.counter()
    assert admitted(counter, "alice", 1, cap=2) == [True]
    store.time.now -= 30

    assert admitted(counter, "alice", 2, cap=2) == [True, False]
    assert 0 < (counter.admit("alice", 2) or 0) <= 60.5


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_long_run_keeps_one_row_per_key_and_cap(kind: str, tmp_path: Path) -> None:
    with ExitStack() as stack:
        url = stack.enter_context(empty_store(kind, tmp_path))
        store = Store(kind, url, FakeTime(), stack)
        requests, programs = store.counter("requests_per_minute"), store.counter("programs")
        for _ in range(200):  # 200 minutes of traffic
            for key in ("alice", "bob"):
                admitted(requests, key, 3, cap=2)
                admitted(programs, key, 1, cap=2)
            store.time.now += 59.7

        assert store.rows() == 4


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_processes_on_one_store_share_one_cap(kind: str, tmp_path: Path) -> None:
    """Two counters on one store, as two gateway processes open them, hammered by threads:
    exactly the cap is admitted between them, and the restarted one refuses too."""
    with ExitStack() as stack:
        url = stack.enter_context(empty_store(kind, tmp_path))
        store = Store(kind, url, FakeTime(), stack)
        first, second = store.counter(), store.counter()
        admissions: list[bool] = []
        lock = threading.Lock()

        def client(counter: RateCounter) -> Callable[[], None]:
            def run() -> None:
                mine = admitted(counter, "alice", 10, cap=25)
                with lock:
                    admissions.extend(mine)

            return run

        threads = [threading.Thread(target=client(c)) for c in (first, second) * 4]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        restarted = store.counter()

        assert len(admissions) == 80 and admissions.count(True) == 25
        assert restarted.admit("alice", 25) is not None


def test_a_count_that_reads_the_principals_position_counts_only_while_it_has_not_moved(
    store: Store,
) -> None:
    """Postgres reads the position and counts in one statement; the other stores say they
    cannot (their callers read the position, then count)."""
    ledger, counter = store.ledger_and_counter()

    async def counts(position: int, times: int) -> list[tuple[bool, float | None] | None]:
        return [
            await counter.async_admit_unless_moved("alice", 2, ledger, position)
            for _ in range(times)
        ]

    before = ledger.principals_position()
    if store.kind != "postgres":
        assert asyncio.run(counts(before, 1)) == [None]
        return
    assert asyncio.run(counts(before, 1)) == [(True, None)]
    principals.register(ledger, "dana", role="customer")
    moved = asyncio.run(counts(before, 3))  # counts nothing, however often
    now = ledger.principals_position()
    at_now = asyncio.run(counts(now, 2))

    assert now > before
    assert moved == [(False, None)] * 3
    assert at_now[0] == (True, None)  # the second of two
    unmoved, wait = at_now[1] or (False, None)
    assert unmoved and wait == pytest.approx(60.5)  # the third is past the cap
