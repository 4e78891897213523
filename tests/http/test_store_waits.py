"""A store that makes requests wait: bounded waits answered 503 with Retry-After, nothing
written, and /health within a second whatever the store or the worker threads do."""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from application.store_config import POSTGRES_WAITS, SQLITE_WAITS
from tests.postgres import support
from tests.served import serving
from tests.stores import postgres_url

SLUICE = str(Path(sys.executable).parent / "sluice")
TELLER = {"Authorization": "Bearer sk-demo-teller"}
# /health's details are for an admin's or auditor's key.
ADMIN = {"Authorization": "Bearer sk-demo-admin"}
# Sluice's default bounds, which these tests do not override.
LOCK_SECONDS = int(POSTGRES_WAITS["POSTGRES_LOCK_TIMEOUT"])
SQLITE_LOCK_SECONDS = int(SQLITE_WAITS["SQLITE_LOCK_TIMEOUT"])
# Past the lock timeout: a request also authenticates and loads what it reads (each of
# which may wait for the lock in turn only after the last one got it), and the machine is
# shared. The lock is held longer than this, so an unbounded wait cannot pass.
MARGIN = 3.0
HEALTH_SECONDS = 1.0
WAIT_VARIABLES = (*POSTGRES_WAITS, *SQLITE_WAITS)
# No bounds on waits: requests keep the server's worker threads (40) and its Postgres
# connections (15) for as long as a table stays locked.
UNBOUNDED = {
    "POSTGRES_LOCK_TIMEOUT": "0",
    "POSTGRES_STATEMENT_TIMEOUT": "0",
    "POSTGRES_CONNECT_TIMEOUT": "120",
}


@pytest.fixture
def environment() -> dict[str, str]:
    """The process environment without any wait a developer may have set."""
    return {k: v for k, v in os.environ.items() if k not in WAIT_VARIABLES}


@contextmanager
def served(url: str, environment: dict[str, str], **extra: str) -> Iterator[httpx.Client]:
    env = {**environment, "SLUICE_DATABASE_URL": url, **extra}
    with (
        serving([SLUICE, "serve", "--demo"], env) as base,
        httpx.Client(base_url=base, headers=TELLER, timeout=60) as client,
    ):
        yield client


def timed(call: Callable[[], httpx.Response]) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


def read(client: httpx.Client) -> httpx.Response:
    # consistent=true: the read first brings the read models up to the log's head.
    return client.get("/v1/accounts/alice", params={"consistent": "true"})


def deposit(client: httpx.Client) -> httpx.Response:
    return client.post("/v1/use-cases/deposit", json={"account": "alice", "amount": 1})


def assert_unavailable(response: httpx.Response, seconds: float, bound: float) -> None:
    assert response.status_code == 503, (response.status_code, response.text)
    assert response.headers["retry-after"] == "1"
    assert response.json()["type"] == "urn:sluice:problem:unavailable"
    print(f"answered {response.status_code} after {seconds:.2f} s")
    assert seconds < bound, f"answered after {seconds:.1f} s"


def assert_health_degraded_at_once(client: httpx.Client) -> dict[str, Any]:
    health, seconds = timed(lambda: client.get("/health", headers=ADMIN))
    assert seconds < HEALTH_SECONDS, f"/health answered after {seconds:.2f} s"
    assert health.status_code == 503, health.text
    body: dict[str, Any] = health.json()
    assert body["status"] == "degraded"
    assert body["checks"][0]["name"] == "store"
    assert body["checks"][0]["status"] == "degraded"
    return body


def answer_within(
    request: Future[tuple[httpx.Response, float]], bound: float
) -> tuple[httpx.Response, float]:
    try:
        return request.result(timeout=bound + 1)
    except TimeoutError:
        pytest.fail(f"no answer within {bound + 1:.0f} s while the store waits")


@contextmanager
def events_locked(schema: str, table: str = "ledger_events") -> Iterator[None]:
    with support.admin_connection() as holder, holder.transaction():
        holder.execute(f'LOCK TABLE "{schema}"."{table}" IN ACCESS EXCLUSIVE MODE')
        yield


def event_count(schema: str) -> int:
    with support.admin_connection() as admin:
        row = admin.execute(f'SELECT count(*) FROM "{schema}"."ledger_events"').fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.postgres
def test_a_locked_events_table_is_a_503_within_the_lock_timeout_and_writes_nothing(
    schema: str, environment: dict[str, str]
) -> None:
    with served(postgres_url(schema), environment) as client:
        balance = read(client).json()["balance"]
        before = event_count(schema)
        bound = LOCK_SECONDS + MARGIN
        # An operator's key, checked once while the store answers, is believed for a
        # minute: /health's details then say why the store is degraded while it hangs.
        assert client.get("/health", headers=ADMIN).json()["store"] == "reachable"
        with ThreadPoolExecutor(2) as pool, events_locked(schema):
            reading = pool.submit(timed, lambda: read(client))
            writing = pool.submit(timed, lambda: deposit(client))
            # /health answers at once, again and again, while both requests wait.
            detail = assert_health_degraded_at_once(client)["store"]
            assert "no answer within" in detail
            assert_health_degraded_at_once(client)
            # The lock stays held while these wait: an unbounded wait cannot pass.
            assert_unavailable(*answer_within(reading, bound), bound)
            assert_unavailable(*answer_within(writing, bound), bound)
        assert event_count(schema) == before

        assert deposit(client).status_code == 200
        assert read(client).json()["balance"] == f"{float(balance) + 1:.2f}"
        assert client.get("/health").json()["status"] == "ok"


@pytest.mark.postgres
def test_health_answers_at_once_when_every_worker_thread_waits_on_the_store(
    schema: str, environment: dict[str, str]
) -> None:
    # The table locked holds the balances' records: a remembered key is checked on the
    # event loop, against the log, and a consistent read then waits in a worker thread.
    with served(postgres_url(schema), environment, **UNBOUNDED) as client:
        assert client.get("/health", headers=ADMIN).json()["store"] == "reachable"
        waiting: list[Future[httpx.Response]] = []
        assert read(client).status_code == 200  # the key is remembered from here on
        with ThreadPoolExecutor(48) as pool, events_locked(schema, "rm_documents"):
            waiting = [pool.submit(read, client) for _ in range(48)]
            assert threads_filled(client), "the worker threads never filled up"

            # Every connection of the pool is held by a waiting read: the store's check
            # finds none free in time, and says so at once.
            assert "no answer within" in assert_health_degraded_at_once(client)["store"]
            assert_health_degraded_at_once(client)
            assert not any(request.done() for request in waiting)

        assert all(request.result(timeout=60).status_code == 200 for request in waiting)
        assert client.get("/health").json()["status"] == "ok"


def threads_filled(client: httpx.Client) -> bool:
    """True once a request served by a worker thread (the console's page, which needs no
    store) finds none free within half a second."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            client.get("/", timeout=0.5)
        except httpx.TimeoutException:
            return True
    return False


def statement(client: httpx.Client) -> httpx.Response:
    return client.get("/v1/accounts/alice/statement")


@pytest.mark.postgres
def test_balances_are_read_on_the_event_loop_while_every_worker_thread_waits(
    schema: str, environment: dict[str, str]
) -> None:
    # Statements are read in worker threads; with their table (the histories) locked and
    # no bound on the waits, 48 of them hold all 40 threads. A balance read from views the
    # projector keeps current needs none: it is answered on the event loop, through
    # asyncpg's own pool.
    with served(postgres_url(schema), environment, **UNBOUNDED) as client:
        assert deposit(client).status_code == 200
        expected = read(client).json()  # consistent: the projector has this deposit
        listed = client.get("/v1/accounts").json()
        assert statement(client).status_code == 200
        # A key is checked on the event loop once this process remembers it.
        bob = {"Authorization": "Bearer sk-demo-bob"}
        assert client.get("/v1/accounts", headers=bob).status_code == 200
        with ThreadPoolExecutor(48) as pool, events_locked(schema, "rm_histories"):
            waiting = [pool.submit(statement, client) for _ in range(48)]
            assert threads_filled(client), "the worker threads never filled up"

            balance, seconds = timed(lambda: client.get("/v1/accounts/alice", timeout=5))
            assert (balance.status_code, balance.json()) == (200, expected), balance.text
            accounts, _ = timed(lambda: client.get("/v1/accounts", timeout=5))
            assert (accounts.status_code, accounts.json()) == (200, listed), accounts.text
            print(f"balance answered in {seconds:.3f} s while the threads waited")
            # Refusals are answered there too: another customer's account, and none.
            forbidden = client.get("/v1/accounts/alice", headers=bob, timeout=5)
            assert forbidden.status_code == 403, forbidden.text
            assert client.get("/v1/accounts/nobody", timeout=5).status_code == 404
            # A consistent read must catch the views up first, in a thread: it waits.
            with pytest.raises(httpx.TimeoutException):
                client.get("/v1/accounts/alice", params={"consistent": "true"}, timeout=1)
            assert not any(request.done() for request in waiting)

        assert all(request.result(timeout=60).status_code == 200 for request in waiting)


def test_a_held_sqlite_write_lock_is_a_503_within_the_busy_timeout(
    tmp_path: Path, environment: dict[str, str]
) -> None:
    database = tmp_path / "sluice.db"
    with served(f"sqlite:///{database}", environment) as client:
        balance = read(client).json()["balance"]
        holder = sqlite3.connect(database, isolation_level=None)
        bound = SQLITE_LOCK_SECONDS + MARGIN
        try:
            holder.execute("BEGIN EXCLUSIVE")
            before = holder.execute("SELECT count(*) FROM stored_events").fetchone()[0]
            writing, seconds = timed(lambda: deposit(client))
            assert_unavailable(writing, seconds, bound)
            # A read writes too: each request counts its admission against the rate caps
            # in the store. So it waits for the busy timeout as well, no longer.
            assert_unavailable(*timed(lambda: read(client)), bound)
            # In WAL mode a writer does not stop readers: /health's probe still answers.
            health, seconds = timed(lambda: client.get("/health"))
            assert (health.status_code, seconds < HEALTH_SECONDS) == (200, True)
            assert holder.execute("SELECT count(*) FROM stored_events").fetchone()[0] == before
        finally:
            holder.execute("ROLLBACK")
            holder.close()

        assert deposit(client).status_code == 200
        assert read(client).json()["balance"] == f"{float(balance) + 1:.2f}"
