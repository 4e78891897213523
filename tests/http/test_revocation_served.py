"""Authentication is remembered per process, and a revocation still takes effect at once on
every process: two served gateways on one store, each having answered a key many times, and
the key revoked by a third process (the CLI). Their very next request with it is refused."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from application.principals import demo_agent_key, demo_key, hash_key
from domain.principal import api_key_id
from tests.served import serving
from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")
UNCAPPED = {"SLUICE_CAP_REQUESTS_PER_MINUTE": "1000000"}


# One pair of gateways per store for the module: each test acts on keys of its own.
@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def gateways(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[dict[str, str], list[str]]]:
    folder = tmp_path_factory.mktemp("revocation")
    with empty_store(request.param, folder) as url, ExitStack() as stack:
        env = {**os.environ, **UNCAPPED, "SLUICE_DATABASE_URL": url}
        first = stack.enter_context(serving([SLUICE, "serve", "--demo"], env))
        second = stack.enter_context(serving([SLUICE, "serve", "--no-projector"], env))
        yield env, [first, second]


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )


def status(base: str, key: str) -> int:
    headers = {"Authorization": f"Bearer {key}"}
    return httpx.get(f"{base}/v1/accounts/alice", headers=headers, timeout=30).status_code


def test_a_key_revoked_by_another_process_is_refused_at_once_by_every_gateway(
    gateways: tuple[dict[str, str], list[str]],
) -> None:
    env, bases = gateways
    agent, person = demo_agent_key("alice"), demo_key("alice")
    for base in bases:  # each process has answered both keys, over and over
        assert [status(base, agent) for _ in range(5)] == [200] * 5
        assert status(base, person) == 200

    revoked = cli(env, "key", "revoke", api_key_id(hash_key(agent)).hex[:12])

    assert revoked.returncode == 0, revoked.stderr
    assert [status(base, agent) for base in bases] == [401, 401]
    # The other key of the same principal, remembered by both, still works.
    assert [status(base, person) for base in bases] == [200, 200]


def test_a_principal_added_by_another_process_is_served_at_once_by_every_gateway(
    gateways: tuple[dict[str, str], list[str]],
) -> None:
    env, bases = gateways
    for base in bases:
        assert status(base, demo_key("alice")) == 200  # a key each process remembers

    added = cli(env, "principal", "add", "dana", "--role", "customer", "--owns", "alice")

    assert added.returncode == 0, added.stderr
    key = next(word for word in added.stdout.split() if word.startswith("sk-"))
    assert [status(base, key) for base in bases] == [200, 200]
    revoked = cli(env, "key", "revoke", "--all", "dana")
    assert revoked.returncode == 0, revoked.stderr
    assert [status(base, key) for base in bases] == [401, 401]
