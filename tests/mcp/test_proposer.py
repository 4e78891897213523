"""Who proposed, beyond a name: an agent key's proposal over MCP is recorded and shown as
the agent key's (its scope, the interface, the key's id) in the proposal event, over HTTP,
in `sluice confirm` and in `sluice audit run`; not as "alice", like her own."""

from __future__ import annotations

import json
import os

import httpx
import pytest

from application.principals import hash_key
from domain.principal import api_key_id
from tests.mcp.routes import run_cli
from tests.mcp.support import AGENT_KEY, HUMAN_KEY, Target, body, connect, transfer

pytestmark = pytest.mark.asyncio


def key_id(key: str) -> str:
    return api_key_id(hash_key(key)).hex[:12]


def wide(target: Target) -> Target:
    return Target(target.transport, {**target.env, "COLUMNS": "300"}, target.base)


async def test_an_agent_keys_mcp_proposal_is_shown_as_the_agents_everywhere(
    target: Target,
) -> None:
    async with connect(target, AGENT_KEY) as client:
        source = transfer("2.25", f"via {target.transport}")
        done = body(
            await client.call_tool("propose_program", {"language": "python", "source": source})
        )
    run_id = done["id"]
    expected = {"scope": "agent", "interface": "mcp", "key_id": key_id(AGENT_KEY)}
    words = f"alice's agent (key {key_id(AGENT_KEY)}, over mcp)"

    assert done["proposed_via"] == expected
    assert done["proposed_by"] == words
    # The event itself, in the log.
    log = [json.loads(line) for line in run_cli(target, "events").stdout.splitlines()]
    [proposed] = [e for e in log if e["aggregate_id"] == run_id and e["type"] == "Run.Proposed"]
    assert proposed["data"]["proposed_via"] == expected
    # The run's story, as JSON and in words.
    story = json.loads(run_cli(target, "audit", "run", run_id, "--json").stdout)
    assert story["proposed_via"] == expected
    told = run_cli(wide(target), "audit", "run", run_id)
    assert (
        f"Run {run_id} by alice (program; agent key {key_id(AGENT_KEY)}, over mcp)" in told.stdout
    )
    # The person who confirms reads it before deciding.
    confirmed = run_cli(wide(target), "confirm", run_id[:8], "--key", HUMAN_KEY, "--yes")
    assert confirmed.returncode == 0, confirmed.stderr
    assert f"Proposed by {words}" in confirmed.stdout
    if target.base is not None:  # and over HTTP, as the console reads it
        shown = httpx.get(f"{target.base}/v1/programs/{run_id}",
                          headers={"Authorization": f"Bearer {HUMAN_KEY}"}).json()  # fmt: skip
        assert shown["proposed_via"] == expected


async def test_a_persons_own_proposal_at_the_terminal_is_shown_as_hers(target: Target) -> None:
    program = os.path.join(os.path.dirname(target.env["SLUICE_DATABASE_URL"][9:]), "own.py")
    with open(program, "w") as file:
        file.write(transfer("1.10", "her own"))

    done = run_cli(target, "run", program, "--key", HUMAN_KEY, "--yes", "--json")

    assert done.returncode == 0, done.stderr
    log = [json.loads(line) for line in run_cli(target, "events").stdout.splitlines()]
    [proposed] = [
        e for e in log if e["type"] == "Run.Proposed" and "her own" in e["data"]["source"]
    ]
    story = json.loads(run_cli(target, "audit", "run", proposed["aggregate_id"], "--json").stdout)
    assert story["proposed_via"] == {
        "scope": "human", "interface": "cli", "key_id": key_id(HUMAN_KEY)
    }  # fmt: skip
