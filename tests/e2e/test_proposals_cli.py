"""`sluice proposals`: the inbox in a terminal, as a person runs it: a real process on a
real SQLite file, proposals made by an agent's key through the gateway."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.bootstrap import Sluice
from tests.e2e.demo_stores import DemoStores

SLUICE = str(Path(sys.executable).parent / "sluice")


@pytest.fixture
def store(tmp_path: Path, demo_stores: DemoStores) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    env |= {"SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}", "COLUMNS": "160"}
    demo_stores.copy(env)
    return env


def _agent_proposes(env: dict[str, str], *amounts: int) -> list[str]:
    """alice's agent proposes payments to bob, each waiting for alice."""
    with Sluice(env["SLUICE_DATABASE_URL"]) as sluice:
        agent = sluice.gateway.authenticate("sk-agent-demo-alice")
        return [
            sluice.gateway.propose(
                agent,
                "python",
                f'transfer(payer="alice", payee="bob", amount={amount})',
                request=f"pay bob {amount} for the concert",
            ).id
            for amount in amounts
        ]


def sluice(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_sluice_proposals_lists_what_waits_for_the_person(store: dict[str, str]) -> None:
    first, second = _agent_proposes(store, 3, 4)

    done = sluice(store, "proposals", "--as", "alice")

    assert done.returncode == 0, done.stderr
    assert "pending proposals for alice, newest first" in done.stdout
    # Newest first, each by the start of its id that `sluice confirm` takes.
    assert done.stdout.index(second[:8]) < done.stdout.index(first[:8])
    assert "pay bob 4 for the concert" in done.stdout
    assert "sluice confirm ID" in done.stdout
    # bob has nothing waiting; the auditor sees alice's.
    assert "No pending proposals for bob." in sluice(store, "proposals", "--as", "bob").stdout
    assert first[:8] in sluice(store, "proposals", "--as", "auditor").stdout


def test_sluice_proposals_pages_with_a_cursor_and_prints_json(store: dict[str, str]) -> None:
    made = _agent_proposes(store, 1, 2, 3)

    page = json.loads(sluice(store, "proposals", "--as", "alice", "--limit", "2", "--json").stdout)
    rest = json.loads(
        sluice(
            store, "proposals", "--as", "alice", "--json", "--cursor", page["next_cursor"]
        ).stdout
    )
    shown = sluice(store, "proposals", "--as", "alice", "--limit", "2")

    assert [item["id"] for item in page["items"]] == [made[2], made[1]]
    assert [item["id"] for item in rest["items"]] == [made[0]]
    assert rest["next_cursor"] is None
    assert f"More: add --cursor {page['next_cursor']}" in shown.stdout


def test_the_inbox_tells_the_money_who_proposed_it_the_status_and_the_time_left(
    store: dict[str, str], tmp_path: Path
) -> None:
    [by_agent] = _agent_proposes(store, 3)
    program = tmp_path / "pay.py"
    program.write_text('transfer(payer="alice", payee="carla", amount=2)\n')
    sluice(store, "run", str(program), "--as", "alice")  # her own; not now: it waits
    read = tmp_path / "read.py"
    read.write_text('get_balance(account="alice")\n')
    assert sluice(store, "run", str(read), "--as", "alice").returncode == 0

    pending = sluice(store, "proposals", "--as", "alice").stdout
    everything = sluice(store, "proposals", "--as", "alice", "--status", "all").stdout
    listed = json.loads(sluice(store, "proposals", "--as", "alice", "--json").stdout)

    lines = {line.split("│")[1].strip(): line for line in pending.splitlines() if "│" in line}
    agent_row = lines[by_agent[:8]]
    assert "alice pays bob 3.00 EUR" in " ".join(pending.split())
    assert "alice pays carla 2.00 EUR" in " ".join(pending.split())
    assert "alice's agent" in agent_row and "pending" in agent_row
    assert "alice's agent wrote: “pay bob 3 for the concert”" in " ".join(pending.split())
    assert re.search(r"│ 1[45]m \d\ds ", agent_row)  # the time left, of 15 minutes
    # The whole list has a status column, and a read is no confirmed proposal.
    assert "done (a read)" in everything and "nothing (a read)" in everything
    [item] = [i for i in listed["items"] if i["id"] == by_agent]
    assert item["moves"] == [
        {"payer": "alice", "payee": "bob", "amount": "3.00", "currency": "EUR"}
    ]
    assert item["proposed_by"].startswith("alice's agent (key ")
    assert item["request_by"] == "alice's agent"


def test_a_decided_proposal_leaves_the_list_and_shows_under_its_status(
    store: dict[str, str],
) -> None:
    [made] = _agent_proposes(store, 5)
    confirmed = sluice(store, "confirm", made, "--as", "alice", "--yes")
    assert confirmed.returncode == 0, confirmed.stdout + confirmed.stderr

    assert made[:8] not in sluice(store, "proposals", "--as", "alice").stdout
    committed = sluice(store, "proposals", "--as", "alice", "--status", "committed", "--json")
    assert [item["id"] for item in json.loads(committed.stdout)["items"]][:1] == [made]
    assert made[:8] in sluice(store, "proposals", "--as", "alice", "--status", "all").stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--status", "waiting"], "status: 'waiting' is not one of pending, committed"),
        (["--cursor", "garbage"], "cursor: is not a cursor this service gave"),
        (["--limit", "0"], "Invalid value for '--limit'"),
        ([], "say who acts: --key KEY, or --as NAME"),
    ],
)
def test_a_bad_option_is_a_usage_error_naming_it(
    store: dict[str, str], args: list[str], said: str
) -> None:
    who = ["--as", "alice"] if args else []
    done = sluice(store, "proposals", *who, *args)

    assert done.returncode == 2
    assert said in done.stderr


def test_a_malformed_webhook_setting_stops_the_command_naming_it(store: dict[str, str]) -> None:
    env = store | {"SLUICE_NOTIFY_URL": "https://hooks.example/x", "SLUICE_NOTIFY_SECRET": "short"}

    done = sluice(env, "proposals", "--as", "alice")

    assert done.returncode == 2
    assert "SLUICE_NOTIFY_SECRET: the webhook's signing secret must be at least 16" in done.stderr
