"""Agents propose, people confirm, over MCP too (P2, P3 through MCP). By default the
server's question is a link (URL-mode elicitation) to the console's review page of that run,
where the person signs in with their own key: the client's answer to it confirms nothing,
and the tool reports the proposal as it then stands. A client that cannot show a link gets
the proposal and its review URL. A form whose acceptance commits is for a client the
operator declared trusted, and a person's key only: test_trusted_form.py."""

from __future__ import annotations

from decimal import Decimal

import pytest
from mcp.shared.exceptions import MCPError

from tests.mcp.routes import confirm_elsewhere, confirm_on_review_page, run_cli
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


def review_url(target: Target, run_id: str) -> str:
    """The console's review page of a run: the served gateway's own, or the one the stdio
    target's SLUICE_CONSOLE_URL names."""
    console = target.base if target.transport == "http" else "http://127.0.0.1:8000"
    return f"{console}/#/proposals/{run_id}"


@pytest.mark.parametrize("mode", ERAS)
async def test_an_agent_key_answering_its_own_question_commits_nothing(
    target: Target, mode: str
) -> None:
    """The agent's key, elicitation on (the default), and a client that accepts whatever it
    is asked, with no one looking: the transfer waits for a person."""
    client_itself = Person("accept")
    async with connect(target, AGENT_KEY, mode=mode, person=client_itself) as client:
        before = await balance(client)
        source = transfer("6.50", f"self-confirmed {mode}")
        done = body(
            await client.call_tool("propose_program", {"language": "python", "source": source})
        )
        after = await balance(client)
        status = body(await client.call_tool("proposal_status", {"id": done["id"]}))
    assert done["status"] == "pending", done
    assert "confirmed_by" not in done and "outcome" not in done  # nothing decided yet
    assert status["status"] == "pending"
    assert after == before
    # It was never shown a form whose acceptance commits: only a link to the console.
    assert client_itself.forms == []
    [link] = client_itself.links
    assert link.url == review_url(target, done["id"])


@pytest.mark.parametrize("mode", ERAS)
async def test_a_persons_key_is_asked_by_link_too_where_no_client_is_trusted(
    target: Target, mode: str
) -> None:
    client_itself = Person("accept")
    async with connect(target, HUMAN_KEY, mode=mode, person=client_itself) as client:
        before = await balance(client)
        source = transfer("1", f"human key {mode}")
        done = body(
            await client.call_tool("propose_program", {"language": "python", "source": source})
        )
        assert await balance(client) == before
    assert done["status"] == "pending"
    assert client_itself.forms == [] and len(client_itself.links) == 1


@pytest.mark.parametrize("mode", ERAS)
async def test_the_question_is_a_link_to_the_review_page_of_that_run(
    target: Target, mode: str
) -> None:
    person = Person("cancel")
    async with connect(target, AGENT_KEY, mode=mode, person=person) as client:
        source = transfer("1.25", f"link {mode}")
        pending = body(
            await client.call_tool("propose_program", {"language": "python", "source": source})
        )
    [link] = person.asked
    assert link.mode == "url"
    assert link.url == review_url(target, pending["id"]) == pending["review_url"]
    # Up to 2025-11-25 a link carries its own id; from 2026-07-28 its input request's key.
    assert bool(link.elicitation_id) is (mode == "legacy")
    # What the person will be asked to confirm, and that following the link decides nothing.
    assert "would append 2 events, all or nothing" in link.message
    assert "alice: TransferDebited, 1.25 EUR, counterparty bob" in link.message
    assert f"Preview {pending['preview_hash'][:12]}" in link.message
    assert "sign in with your own key" in link.message
    assert "Accepting here opens the page; it confirms nothing." in link.message
    assert pending["status"] == "pending"


@pytest.mark.parametrize("mode", ERAS)
async def test_a_person_who_confirms_on_the_review_page_commits_it(
    any_store: Target, mode: str
) -> None:
    """The seed's path, with the person where the agent cannot answer for them: the link
    opens the review page, they confirm there with their own key, and the tool reports the
    committed outcome."""
    target = any_store
    confirmed: list[tuple[int, object]] = []
    person = Person(
        "accept", visit=lambda url: confirmed.append(confirm_on_review_page(target, url, HUMAN_KEY))
    )
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
    [(code, outcome)] = confirmed
    assert code in (200, 0), outcome
    assert after == before - Decimal("7.25")
    assert done["status"] == "committed" and done["confirmed_by"] == "alice"
    assert done["outcome"]["changed"] == 2
    assert [e["type"] for e in done["outcome"]["events"]] == ["TransferDebited", "TransferCredited"]
    assert status["status"] == "committed"
    assert [link.url for link in person.links] == [review_url(target, done["id"])]


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("answer", ["accept", "decline", "cancel"])
async def test_no_answer_to_the_link_decides_and_a_person_still_can(
    target: Target, mode: str, answer: str
) -> None:
    async with connect(target, AGENT_KEY, mode=mode, person=Person(answer)) as client:  # type: ignore[arg-type]
        before = await balance(client)
        source = transfer("2", f"{answer} {mode}")
        pending = body(
            await client.call_tool("propose_program", {"language": "python", "source": source})
        )
        assert pending["status"] == "pending" and "decided_by" not in pending
        assert "A person confirms this exact preview" in pending["next"]
        assert pending["review_url"] == review_url(target, pending["id"])
        # The agent's own key cannot confirm it, by the console's route or the CLI.
        refused, said = confirm_elsewhere(target, pending["id"], pending["preview_hash"], AGENT_KEY)
        assert refused in (403, 2), said
        assert "scope agent may propose but never confirm" in str(said)
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


@pytest.mark.parametrize("key", [AGENT_KEY, HUMAN_KEY], ids=["agent key", "human key"])
async def test_a_client_without_links_gets_the_review_url_and_no_form(
    target: Target, key: str
) -> None:
    """A client that shows forms but not links is shown nothing to accept: whoever answers
    it, by default a form could be the agent's own answer."""
    client_itself = Person("accept")
    async with connect(target, key, person=client_itself, form_only=True) as client:
        before = await balance(client)
        pending = body(
            await client.call_tool(
                "propose_program", {"language": "python", "source": transfer("1", "form only")}
            )
        )
        assert await balance(client) == before
    assert client_itself.asked == []
    assert pending["status"] == "pending"
    assert pending["review_url"] == review_url(target, pending["id"])
    assert f"`sluice confirm {pending['id'][:8]}`" in pending["next"]  # the start a table shows


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
    assert pending["review_url"] == review_url(target, pending["id"])
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
