"""Principals and keys as an operator manages them: `sluice principal list`, `sluice key
list`, revoking by a key's id or all of a principal's keys, and keys that expire, each
checked through the real CLI and a served gateway's HTTP API."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from application.principals import demo_agent_key, demo_key, hash_key
from domain.principal import api_key_id
from tests.e2e.demo_stores import DemoStores
from tests.served import serving

SLUICE = str(Path(sys.executable).parent / "sluice")


def sluice(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, *args], env={**env, "COLUMNS": "200"}, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip


def key_id(key: str) -> str:
    return api_key_id(hash_key(key)).hex[:12]


@pytest.fixture
def served(tmp_path: Path, demo_stores: DemoStores) -> Iterator[tuple[dict[str, str], str]]:
    env = {**os.environ, "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'keys.db'}"}
    demo_stores.copy(env)
    with serving([SLUICE, "serve"], env) as base:
        yield env, base


def accounts(base: str, key: str) -> httpx.Response:
    return httpx.get(f"{base}/v1/accounts", headers={"Authorization": f"Bearer {key}"})


def rows(table: str) -> list[list[str]]:
    """The body rows of a rich table, as cells."""
    found = []
    for line in table.splitlines():
        if line.startswith("│"):
            found.append([cell.strip() for cell in line.strip("│").split("│")])
    return found


def test_principal_list_names_each_principal_with_its_role_and_accounts(
    served: tuple[dict[str, str], str],
) -> None:
    env, _ = served
    done = sluice(env, "principal", "list")

    assert done.returncode == 0, done.stderr
    listed = {cells[0]: cells[1:] for cells in rows(done.stdout)}
    assert listed["alice"] == ["customer", "alice", "2"]
    assert listed["auditor"] == ["auditor", "-", "2"]
    assert set(listed) == {"admin", "alice", "auditor", "bob", "carla", "teller"}


def test_key_list_shows_ids_scopes_and_last_use_never_the_key(
    served: tuple[dict[str, str], str],
) -> None:
    env, base = served
    program = {"language": "python", "source": "list_accounts()"}
    used = httpx.post(f"{base}/v1/programs", json=program,
                      headers={"Authorization": f"Bearer {demo_agent_key('alice')}"})  # fmt: skip
    assert used.status_code == 201, used.text

    done = sluice(env, "key", "list", "alice")
    every = sluice(env, "key", "list")

    assert done.returncode == 0, done.stderr
    listed = {cells[0]: cells for cells in rows(done.stdout)}
    assert set(listed) == {key_id(demo_key("alice")), key_id(demo_agent_key("alice"))}
    human, agent = listed[key_id(demo_key("alice"))], listed[key_id(demo_agent_key("alice"))]
    assert (human[1:3], agent[1:3]) == (["alice", "human"], ["alice", "agent"])
    assert human[4] == "-" and agent[4] != "-"  # the agent key proposed; the other did not
    assert human[5:] == agent[5:] == ["-", "active"]
    assert "sk-" not in done.stdout
    assert len(rows(every.stdout)) == 12  # two keys for each of the six demo principals


def test_a_key_revoked_by_its_id_is_refused_at_once_and_the_others_still_work(
    served: tuple[dict[str, str], str],
) -> None:
    env, base = served
    assert accounts(base, demo_agent_key("alice")).status_code == 200

    done = sluice(env, "key", "revoke", key_id(demo_agent_key("alice"))[:8])

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"Revoked key {key_id(demo_agent_key('alice'))} of alice"
    refused = accounts(base, demo_agent_key("alice"))
    assert refused.status_code == 401
    assert "unknown or revoked" in refused.json()["detail"]
    assert accounts(base, demo_key("alice")).status_code == 200
    listed = {c[0]: c[-1] for c in rows(sluice(env, "key", "list", "alice").stdout)}
    assert listed[key_id(demo_agent_key("alice"))] == "revoked"


def test_revoking_all_of_a_principals_keys_refuses_each_of_them(
    served: tuple[dict[str, str], str],
) -> None:
    env, base = served

    done = sluice(env, "key", "revoke", "--all", "bob")
    again = sluice(env, "key", "revoke", "--all", "bob")

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Revoked 2 key(s) of bob: ")
    assert again.stdout.startswith("Revoked 0 key(s) of bob")
    assert accounts(base, demo_key("bob")).status_code == 401
    assert accounts(base, demo_agent_key("bob")).status_code == 401
    assert accounts(base, demo_key("alice")).status_code == 200


def test_an_expired_key_is_refused_saying_when_it_expired(
    served: tuple[dict[str, str], str],
) -> None:
    env, base = served
    # Long enough for the first check to come before it on a busy machine; the wait after is
    # until the expiry (8 s from a moment before the issuing command returned).
    issued = sluice(env, "principal", "key", "carla", "--scope", "agent", "--expires", "8s")
    issued_at_most = time.monotonic()
    assert issued.returncode == 0, issued.stderr
    key = issued.stdout.strip()
    assert accounts(base, key).status_code == 200

    time.sleep(max(0.0, issued_at_most + 8.5 - time.monotonic()))
    refused = accounts(base, key)
    at_terminal = sluice(env, "directory", "--key", key)

    assert refused.status_code == 401
    assert refused.json()["detail"].startswith("this API key expired at ")
    assert at_terminal.returncode == 2 and "this API key expired at" in at_terminal.stderr
    listed = {c[0]: c[-1] for c in rows(sluice(env, "key", "list", "carla").stdout)}
    assert listed[key_id(key)] == "expired"


def test_key_refusals_name_the_thing_and_the_reason(served: tuple[dict[str, str], str]) -> None:
    env, _ = served
    before = sluice(env, "events").stdout
    cases = [
        (("principal", "key", "alice", "--expires", "soon"), "--expires 'soon': give a duration"),
        (("principal", "key", "alice", "--expires", "2020-01-01T00:00:00+00:00"),
         "is not in the future"),
        (("principal", "key", "alice", "--expires", "2999-01-01T00:00:00"), "give the time zone"),
        (("principal", "add", "erin", "--role", "teller", "--expires", "0s"), "not in the future"),
        (("key", "revoke"), "give a key id, or --all PRINCIPAL"),
        (("key", "revoke", "abcdef", "--all", "bob"), "give a key id, or --all PRINCIPAL"),
        (("key", "revoke", "ab"), "give at least 4 characters"),
        (("key", "revoke", "ffffffffffff"), "no key ffffffffffff"),
        (("key", "revoke", "--all", "mallory"), "no principal mallory"),
        (("key", "list", "mallory"), "no principal mallory"),
    ]  # fmt: skip
    for args, reason in cases:
        done = sluice(env, *args)
        assert done.returncode == 2, (args, done.stdout)
        assert reason in done.stderr, (args, done.stderr)
    assert sluice(env, "events").stdout == before  # nothing was written
