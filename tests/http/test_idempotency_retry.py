"""Direct calls under contention: one that meets a concurrent change is done again on the
new state; one that still loses (409) is not kept for its Idempotency-Key, so its retry
with the same key goes through, once.

A process's own writes to one account take turns (application/turns.py) and do
not conflict with each other; the first test races them, the second races writes that do
not take turns, as several processes' writes do not."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from dataclasses import replace
from decimal import Decimal

import httpx
import pytest

from gateway.bootstrap import Sluice
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from tests.conftest import TEST_CAPS
from tests.http.test_concurrency import serve

TELLER = {"Authorization": "Bearer sk-demo-teller"}
WRITERS = 16  # enough at once on one account that some lose every attempt


@pytest.fixture
def api(database_url: str, sandbox: Sandbox) -> Iterator[str]:
    caps = replace(TEST_CAPS, requests_per_minute=1_000_000)
    with Sluice(database_url, caps, sandbox=sandbox) as sluice:
        seed(sluice.gateway)
        yield from serve(sluice)


def deposit(client: httpx.Client, key: str) -> httpx.Response:
    return client.post(
        "/v1/use-cases/deposit",
        json={"account": "bob", "amount": "1.00"},
        headers={"Idempotency-Key": key},
    )


def racing_deposits(client: httpx.Client, writers: int = WRITERS) -> dict[str, int]:
    """Deposits to one account at the same moment, each with its own key."""
    start = threading.Barrier(writers)
    statuses: dict[str, int] = {}

    def run() -> None:
        key = str(uuid.uuid4())
        start.wait()
        statuses[key] = deposit(client, key).status_code

    threads = [threading.Thread(target=run) for _ in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def bob(client: httpx.Client) -> Decimal:
    answer = client.get("/v1/accounts/bob", params={"consistent": "true"})
    return Decimal(answer.json()["balance"])


def test_direct_calls_meeting_each_other_are_done_again_on_the_new_state(api: str) -> None:
    # Three at once: each loses at most to the two others, and is done again each time.
    with httpx.Client(base_url=api, headers=TELLER, timeout=60) as client:
        before = bob(client)
        for _ in range(5):
            statuses = racing_deposits(client, writers=3)
            assert list(statuses.values()) == [200, 200, 200]
        assert bob(client) == before + 15


@pytest.fixture
def racing_api(database_url: str, sandbox: Sandbox) -> Iterator[str]:
    """As `api`, but its direct writes do not take turns (`Gateway.writes_as_cached` off):
    its racing deposits then conflict with each other as writes from several processes
    do, and some lose every try, which is what the test needs to happen."""
    caps = replace(TEST_CAPS, requests_per_minute=1_000_000)
    with Sluice(database_url, caps, sandbox=sandbox) as sluice:
        sluice.gateway.writes_as_cached = False
        seed(sluice.gateway)
        yield from serve(sluice)


def test_a_conflict_is_not_replayed_and_the_retry_with_the_same_key_commits(
    racing_api: str,
) -> None:
    with httpx.Client(base_url=racing_api, headers=TELLER, timeout=60) as client:
        lost: list[str] = []
        for _ in range(20):  # until some requests lose a race
            statuses = racing_deposits(client)
            assert set(statuses.values()) <= {200, 409}, statuses
            lost += [key for key, status in statuses.items() if status == 409]
            if lost:
                break
        assert lost, "no deposit ever lost a race"
        before = bob(client)

        retried = [deposit(client, key) for key in lost]
        replayed = [deposit(client, key) for key in lost]

        assert [r.status_code for r in retried] == [200] * len(lost), [r.text for r in retried]
        assert [r.json() for r in replayed] == [r.json() for r in retried]  # final: replayed
        assert bob(client) == before + len(lost)  # each retry deposited once
