"""One principal cannot starve the others' programs (issue 14): with the default caps and
sandbox pool, a principal runs at most `programs_at_once` programs at once; one more is
refused 429 at once, writing nothing, and another principal's program still gets a worker
and runs to its end (not `time limit`, not `unavailable`)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.mcp.support import SLUICE, Target
from tests.served import serving
from tests.stores import empty_store

ALICE = {"Authorization": "Bearer sk-demo-alice"}
BOB = {"Authorization": "Bearer sk-demo-bob"}
ADMIN = {"Authorization": "Bearer sk-demo-admin"}
RUNAWAY = "while True:\n    pass\n"
BOB_BALANCE = 'get_balance(account="bob")\n'
# More runaways than the default 2 workers can run within the default 5 s wait, 2 s each.
FLOOD = 12


def default_env(url: str) -> dict[str, str]:
    """The test process's environment with every cap and pool setting at its default."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLUICE_CAP_", "SLUICE_SAND"))}
    return env | {"SLUICE_DATABASE_URL": url}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Target]:
    with empty_store(request.param, tmp_path) as url:
        env = default_env(url)
        with serving([SLUICE, "serve", "--demo"], env) as base:
            yield Target("http", env, base)


def propose(base: str, headers: dict[str, str], source: str) -> httpx.Response:
    return httpx.post(
        f"{base}/v1/programs",
        json={"language": "python", "source": source},
        headers=headers,
        timeout=60,
    )


def log_head(base: str) -> int:
    events = httpx.get(
        f"{base}/v1/events", params={"after": 0, "limit": 1000}, headers=ADMIN, timeout=30
    ).json()
    return int(events[-1]["position"]) if events else 0


def flood(base: str, answers: list[httpx.Response]) -> list[threading.Thread]:
    def send() -> None:
        answers.append(propose(base, ALICE, RUNAWAY))

    threads = [threading.Thread(target=send) for _ in range(FLOOD)]
    for thread in threads:
        thread.start()
    return threads


def test_one_principals_runaways_leave_a_worker_for_another_principal(served: Target) -> None:
    base = served.base
    assert base is not None
    head = log_head(base)
    answers: list[httpx.Response] = []
    threads = flood(base, answers)
    try:
        time.sleep(1)  # alice's programs have all reached the gateway; one is running
        bob = propose(base, BOB, BOB_BALANCE)
    finally:
        for thread in threads:
            thread.join(timeout=120)

    # Bob's one line ran to its end on the worker alice could not take.
    assert bob.status_code == 201, bob.text
    assert bob.json()["outcome"]["status"] == "committed"
    assert bob.json()["outcome"]["result"] == "0.00"

    refused = [a for a in answers if a.status_code == 429]
    ran = [a for a in answers if a.status_code != 429]
    # The default is one program at once: the one that ran stopped on its own time cap.
    assert len(refused) == FLOOD - 1, [a.text for a in answers]
    (timed_out,) = ran
    assert timed_out.status_code == 422, timed_out.text
    assert timed_out.json()["detail"] == "time limit: the program ran longer than 2 s"
    for answer in refused:
        assert answer.headers["content-type"].startswith("application/problem+json")
        assert answer.headers["retry-after"] == "2"
        problem = answer.json()
        assert problem["type"] == "urn:sluice:problem:rate-limited"
        assert problem["detail"].startswith(
            "cap programs_at_once: principal alice may run 1 program at once"
        )
        assert "nothing was written" in problem["detail"]
        assert "run_id" not in problem

    # Nothing of the refused programs is written: only the two runs that ran.
    events = httpx.get(
        f"{base}/v1/events", params={"after": head, "limit": 1000}, headers=ADMIN, timeout=30
    ).json()
    runs = {e["aggregate_id"] for e in events}
    assert runs == {timed_out.json()["run_id"], bob.json()["id"]}
