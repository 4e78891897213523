"""Only a person confirms (P2, P3 through MCP): the seed's path commits exactly the preview
the person accepted through elicitation, in either era of the protocol; anything else
leaves the proposal pending or rejected, with nothing written."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from mcp.shared.exceptions import MCPError

from tests.mcp.routes import confirm_elsewhere, run_cli
from tests.mcp.support import (
    AGENT_KEY,
    ERAS,
    HUMAN_KEY,
    Person,
    Target,
    balance,
    body,
    connect,
    text,
    transfer,
)

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("mode", ERAS)
async def test_seed_path_commits_what_the_person_accepted(any_store: Target, mode: str) -> None:
    target = any_store
    person = Person("accept")
    async with connect(target, AGENT_KEY, mode=mode, person=person) as client:
        assert "- transfer [write]" in text(await client.call_tool("directory", {}))
        body(await client.call_tool("find_actions", {"names": ["transfer"]}))
        before = await balance(client)
        source = transfer("7.25", f"seed {mode}")
        done = body(
            await client.call_tool("propose_program", {"language": "python", "source": source})
        )
        after = await balance(client)
        status = body(await client.call_tool("proposal_status", {"id": done["id"]}))
    assert after == before - Decimal("7.25")
    assert done["status"] == "committed" and done["confirmed_by"] == "alice"
    assert done["outcome"]["changed"] == 2
    assert [e["type"] for e in done["outcome"]["events"]] == ["TransferDebited", "TransferCredited"]
    assert status["status"] == "committed"
    # The person was asked once, and shown the exact effects, the preview and where to review.
    [asked] = person.asked
    assert "would append 2 events, all or nothing" in asked.message
    assert "alice: TransferDebited, 7.25 EUR, counterparty bob" in asked.message
    assert "bob: TransferCredited, 7.25 EUR, counterparty alice" in asked.message
    assert f"Preview {done['preview_hash'][:12]}" in asked.message
    assert f"#/proposals/{done['id']}" in asked.message
    assert asked.requested_schema["required"] == ["confirm"]


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("answer", ["decline", "untick"])
async def test_a_person_who_says_no_gets_nothing_written(
    target: Target, mode: str, answer: str
) -> None:
    person = Person(answer)  # type: ignore[arg-type]
    async with connect(target, AGENT_KEY, mode=mode, person=person) as client:
        before = await balance(client)
        source = transfer("3", f"{answer} {mode}")
        done = body(
            await client.call_tool("propose_program", {"language": "python", "source": source})
        )
        after = await balance(client)
    assert len(person.asked) == 1
    assert done["status"] == "rejected" and done["decided_by"] == "alice"
    assert done["outcome"]["changed"] == "nothing"
    assert after == before


@pytest.mark.parametrize("mode", ERAS)
async def test_a_cancelled_question_leaves_it_to_a_person_elsewhere(
    target: Target, mode: str
) -> None:
    async with connect(target, AGENT_KEY, mode=mode, person=Person("cancel")) as client:
        before = await balance(client)
        source = transfer("2", f"cancel {mode}")
        pending = body(
            await client.call_tool("propose_program", {"language": "python", "source": source})
        )
        assert pending["status"] == "pending"
        assert "A person confirms this exact preview" in pending["next"]
        assert pending["review_url"].endswith(f"#/proposals/{pending['id']}")
        # The agent's own key cannot confirm it, by the console's route or the CLI.
        refused, answer = confirm_elsewhere(
            target, pending["id"], pending["preview_hash"], AGENT_KEY
        )
        assert refused in (403, 2), answer
        assert "scope agent may propose but never confirm" in str(answer)
        assert await balance(client) == before
        # The person does, with their own key.
        status, outcome = confirm_elsewhere(
            target, pending["id"], pending["preview_hash"], HUMAN_KEY
        )
        assert status in (200, 0), outcome
        assert outcome["status"] == "committed"
        assert await balance(client) == before - 2
        shown = body(await client.call_tool("proposal_status", {"id": pending["id"]}))
    assert shown["status"] == "committed" and shown["outcome"]["changed"] == 2


async def test_without_elicitation_a_proposal_waits_for_the_console(target: Target) -> None:
    async with connect(target, AGENT_KEY) as client:  # declares no elicitation support
        before = await balance(client)
        pending = body(
            await client.call_tool(
                "propose_program", {"language": "python", "source": transfer("1", "console")}
            )
        )
        assert pending["status"] == "pending"
        assert [e["type"] for e in pending["preview"]["events"]] == [
            "TransferDebited",
            "TransferCredited",
        ]
        assert await balance(client) == before
    if target.transport == "http":
        assert pending["review_url"] == f"{target.base}/#/proposals/{pending['id']}"
    status, outcome = confirm_elsewhere(target, pending["id"], pending["preview_hash"], HUMAN_KEY)
    assert status in (200, 0) and outcome["status"] == "committed"


async def test_no_elicitation_switch_never_asks(stdio_target: Target) -> None:
    person = Person("accept")
    async with connect(
        stdio_target, AGENT_KEY, person=person, extra_args=("--no-elicitation",)
    ) as client:
        before = await balance(client)
        pending = body(
            await client.call_tool(
                "propose_program", {"language": "python", "source": transfer("1", "off")}
            )
        )
        assert await balance(client) == before
    assert pending["status"] == "pending" and person.asked == []


@pytest.mark.parametrize("mode", ERAS)
async def test_a_preview_gone_stale_is_asked_about_again_fresh(
    any_store: Target, mode: str
) -> None:
    """P3 through MCP: alice's account moves while she reads; nothing of the old preview is
    written, she is shown the fresh one, and what commits is what she accepted last."""
    target = any_store

    def alice_pays_carla() -> None:
        done = run_cli(target, "call", "transfer", "payer=alice", "payee=carla", "amount=1",
                       "--as", "alice")  # fmt: skip
        assert json.loads(done.stdout)["status"] == "committed", done.stdout

    person = Person("accept", meanwhile=alice_pays_carla)
    async with connect(target, AGENT_KEY, mode=mode, person=person) as client:
        before = await balance(client)
        source = transfer("2", f"stale {mode}") + 'get_balance(account="alice")\n'
        done = body(
            await client.call_tool("propose_program", {"language": "python", "source": source})
        )
        after = await balance(client)
    first, second = person.asked
    assert first.message != second.message
    assert f"Preview {done['preview_hash'][:12]}" in second.message
    assert f"Preview {done['preview_hash'][:12]}" not in first.message
    assert done["status"] == "committed"
    assert after == before - 3
    assert done["outcome"]["result"] == str(after)


async def test_a_key_revoked_mid_session_stops_at_its_next_call(target: Target) -> None:
    key = run_cli(target, "principal", "key", "alice", "--scope", "agent").stdout.strip()
    async with connect(target, key) as client:
        assert "- transfer [write]" in text(await client.call_tool("directory", {}))
        revoked = run_cli(target, "principal", "revoke", "--key", key)
        assert revoked.stdout.strip() == "Revoked a key of alice"
        if target.transport == "stdio":
            refused = await client.call_tool("directory", {})
            assert refused.is_error
            assert "unauthenticated: this API key is unknown or revoked" in text(refused)
        else:
            with pytest.raises(
                MCPError, match="unauthenticated: this API key is unknown or revoked"
            ):
                await client.call_tool("directory", {})
