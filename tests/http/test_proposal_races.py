"""Races on one proposal through a served API: every answer is 200, 409 or 410, never a 5xx,
and whatever wins, the proposal's events are in the log at most once."""

from __future__ import annotations

import functools
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest

from gateway.bootstrap import Sluice
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from tests.conftest import TEST_CAPS, Clock
from tests.http.test_concurrency import serve

ALICE = {"Authorization": "Bearer sk-demo-alice"}
AUDITOR = {"Authorization": "Bearer sk-demo-auditor"}
PAY_BOB = 'transfer(payer="alice", payee="bob", amount=1)'
ROUNDS = 8


@pytest.fixture
def clocked(database_url: str, sandbox: Sandbox, clock: Clock) -> Iterator[tuple[str, Clock]]:
    caps = replace(TEST_CAPS, requests_per_minute=1_000_000, programs_per_minute=1_000_000)
    with Sluice(database_url, caps, sandbox=sandbox, clock=clock) as sluice:
        seed(sluice.gateway)
        for base in serve(sluice):
            yield base, clock


def at_once(*calls: Callable[[], httpx.Response]) -> list[httpx.Response]:
    """Start every call at the same moment; their answers in order."""
    start = threading.Barrier(len(calls))
    answers: list[httpx.Response | None] = [None] * len(calls)

    def run(i: int) -> None:
        start.wait()
        answers[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(answer is not None for answer in answers)
    return [answer for answer in answers if answer is not None]


def propose(client: httpx.Client) -> dict[str, Any]:
    answer = client.post("/v1/programs", json={"language": "python", "source": PAY_BOB})
    assert answer.status_code == 201, answer.text
    proposal: dict[str, Any] = answer.json()
    return proposal


def confirm(client: httpx.Client, proposal: dict[str, Any]) -> Callable[[], httpx.Response]:
    return lambda: client.post(
        f"/v1/programs/{proposal['id']}/confirm",
        json={"preview_hash": proposal["preview_hash"]},
    )


def payments_to_bob(base: str) -> int:
    """How many transfers from alice to bob the log holds."""
    with httpx.Client(base_url=base, headers=AUDITOR, timeout=30) as client:
        log = client.get("/v1/events", params={"limit": 1000}).json()
    return len(
        [
            e
            for e in log
            if e["type"] == "Account.TransferDebited"
            and (e["account"], e["data"]["counterparty"]) == ("alice", "bob")
        ]
    )


def test_three_confirms_of_a_stale_proposal_answer_409_or_200(
    clocked: tuple[str, Clock],
) -> None:
    base, _ = clocked
    statuses: Counter[int] = Counter()
    with httpx.Client(base_url=base, headers=ALICE, timeout=60) as client:
        for _ in range(ROUNDS):
            stale = propose(client)
            client.post("/v1/use-cases/transfer", json={"payer": "alice", "payee": "carla",
                                                        "amount": 1})  # fmt: skip
            answers = at_once(*[confirm(client, stale)] * 3)
            statuses.update(a.status_code for a in answers)
            for answer in answers:
                assert answer.headers["content-type"].startswith(
                    "application/problem+json" if answer.status_code >= 400 else "application/json"
                )
                if answer.status_code == 409:
                    fresh = answer.json()["proposal"]
                    assert fresh["id"] == stale["id"]
                    assert fresh["status"] in {"pending", "failed"}

    assert set(statuses) <= {200, 409}, statuses
    assert statuses[409] >= ROUNDS  # each stale preview was refused at least once
    assert payments_to_bob(base) == 0  # a stale preview never commits


def test_concurrent_confirms_of_one_fresh_proposal_commit_it_once(
    clocked: tuple[str, Clock],
) -> None:
    base, _ = clocked
    with httpx.Client(base_url=base, headers=ALICE, timeout=60) as client:
        for _ in range(ROUNDS):
            proposal = propose(client)
            answers = at_once(*[confirm(client, proposal)] * 3)

            assert [a.status_code for a in answers] == [200, 200, 200], [a.text for a in answers]
            assert {a.json()["status"] for a in answers} == {"committed"}
    assert payments_to_bob(base) == ROUNDS


def test_confirm_racing_reject_ends_one_way_only(clocked: tuple[str, Clock]) -> None:
    base, _ = clocked
    committed = 0
    with httpx.Client(base_url=base, headers=ALICE, timeout=60) as client:
        for _ in range(ROUNDS):
            proposal = propose(client)
            confirmed, rejected = at_once(
                confirm(client, proposal),
                functools.partial(client.post, f"/v1/programs/{proposal['id']}/reject"),
            )
            committed += confirmed.status_code == 200
            final = client.get(f"/v1/programs/{proposal['id']}").json()["status"]

            assert (confirmed.status_code, rejected.status_code) in {(200, 410), (410, 200)}, (
                confirmed.text,
                rejected.text,
            )
            assert final == ("committed" if confirmed.status_code == 200 else "rejected")
    assert payments_to_bob(base) == committed


def test_three_confirms_of_an_expired_proposal_answer_410(clocked: tuple[str, Clock]) -> None:
    base, clock = clocked
    with httpx.Client(base_url=base, headers=ALICE, timeout=60) as client:
        for _ in range(ROUNDS):
            proposal = propose(client)
            clock.advance(TEST_CAPS.proposal_ttl_seconds + 1)
            answers = at_once(*[confirm(client, proposal)] * 3)

            assert [a.status_code for a in answers] == [410, 410, 410], [a.text for a in answers]
            assert all("expired" in a.json()["detail"] for a in answers)
            assert client.get(f"/v1/programs/{proposal['id']}").json()["status"] == "expired"
    assert payments_to_bob(base) == 0
