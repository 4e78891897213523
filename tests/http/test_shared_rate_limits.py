"""One cap across processes and restarts: two `sluice serve` processes on one store admit
requests_per_minute and programs_per_minute between them, not each, and a restarted
process still refuses what the minute has used up."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from application.principals import demo_agent_key, demo_key, hash_key
from domain.principal import api_key_id
from tests.served import serving
from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")
REQUESTS, PROGRAMS = 10, 3
BOB = {"Authorization": "Bearer sk-demo-bob"}
CARLA = {"Authorization": "Bearer sk-demo-carla"}
ALICE = {"Authorization": "Bearer sk-demo-alice"}
READ = {"language": "python", "source": 'get_balance(account="alice")'}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    with empty_store(request.param, tmp_path) as url:
        yield {
            **os.environ,
            "SLUICE_DATABASE_URL": url,
            "SLUICE_CAP_REQUESTS_PER_MINUTE": str(REQUESTS),
            "SLUICE_CAP_PROGRAMS_PER_MINUTE": str(PROGRAMS),
        }


@contextmanager
def gateway(env: dict[str, str]) -> Iterator[str]:
    with serving([SLUICE, "serve", "--demo"], env) as base:
        yield base


def assert_refused(answer: httpx.Response, cap: str) -> None:
    assert answer.status_code == 429, answer.text
    assert 1 <= int(answer.headers["retry-after"]) <= 60
    problem = answer.json()
    assert problem["type"] == "urn:sluice:problem:rate-limited"
    assert problem["retry_after"] == int(answer.headers["retry-after"])
    assert f"cap {cap}:" in problem["detail"]


def test_two_processes_share_one_cap_and_a_restart_keeps_it(store_env: dict[str, str]) -> None:
    with gateway(store_env) as first, gateway(store_env) as second:
        # requests_per_minute: bob's ten requests, spread over both processes, are all he has.
        answers = [
            httpx.get(f"{base}/v1/accounts/bob", headers=BOB, timeout=10)
            for base in [first, second] * (REQUESTS // 2)
        ]
        assert [a.status_code for a in answers] == [200] * REQUESTS
        assert_refused(httpx.get(f"{first}/v1/accounts/bob", headers=BOB), "requests_per_minute")
        assert_refused(httpx.get(f"{second}/v1/accounts/bob", headers=BOB), "requests_per_minute")
        assert httpx.get(f"{second}/v1/accounts/carla", headers=CARLA).status_code == 200

        # programs_per_minute: alice's three programs, over both processes, are all she has.
        for base in (first, second, first):
            done = httpx.post(f"{base}/v1/programs", headers=ALICE, json=READ, timeout=30)
            assert done.status_code == 201 and done.json()["status"] == "committed", done.text
        refused = httpx.post(f"{second}/v1/programs", headers=ALICE, json=READ, timeout=30)
        assert_refused(refused, "programs_per_minute")

    # Both processes stopped; a new one counts what the minute has already used.
    with gateway(store_env) as restarted:
        assert_refused(
            httpx.get(f"{restarted}/v1/accounts/bob", headers=BOB), "requests_per_minute"
        )
        refused = httpx.post(f"{restarted}/v1/programs", headers=ALICE, json=READ, timeout=30)
        assert_refused(refused, "programs_per_minute")
        assert httpx.get(f"{restarted}/v1/accounts/carla", headers=CARLA).status_code == 200


def test_each_request_is_counted_once_when_keys_change_between_them(
    store_env: dict[str, str],
) -> None:
    """A remembered key is checked and counted in one statement where the store can: if the
    principals position moved since, nothing is counted there and the request is counted
    where the key is loaded afresh, once; a revoked key's refused request counts nothing."""
    agent, person = demo_agent_key("alice"), demo_key("alice")
    agent_key, person_key = (
        {"Authorization": f"Bearer {agent}"},
        {"Authorization": f"Bearer {person}"},
    )
    with gateway(store_env) as base:

        def get(headers: dict[str, str]) -> int:
            return httpx.get(f"{base}/v1/accounts/alice", headers=headers, timeout=10).status_code

        assert [get(agent_key), get(person_key)] == [200, 200]  # both keys remembered: 2
        added = cli(store_env, "principal", "add", "dana", "--role", "customer")
        assert added.returncode == 0, added.stderr  # the principals position moves
        assert get(person_key) == 200  # loaded afresh: 3, not 4
        revoked = cli(store_env, "key", "revoke", api_key_id(hash_key(agent)).hex[:12])
        assert revoked.returncode == 0, revoked.stderr
        assert get(agent_key) == 401  # refused: counts nothing
        # Alice has used 3 of her 10; the other 7 are hers, and no more.
        assert [get(person_key) for _ in range(REQUESTS - 3)] == [200] * (REQUESTS - 3)
        assert_refused(
            httpx.get(f"{base}/v1/accounts/alice", headers=person_key), "requests_per_minute"
        )


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )
