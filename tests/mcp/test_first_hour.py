"""MCP as a newcomer meets it: the review link is the address the server answers on (or, for
`sluice mcp` without SLUICE_CONSOLE_URL, none, and says what to set); the 8 characters a
table shows name a proposal; a proposal's answer is lean; and it names its author as the
person's agent, with the money it moves."""

from __future__ import annotations

import json

import pytest

from tests.mcp.support import AGENT_KEY, Person, Target, body, connect, text, transfer

pytestmark = pytest.mark.asyncio


async def test_the_review_link_is_the_served_address_whatever_its_port(
    http_target: Target,
) -> None:
    assert http_target.base is not None and not http_target.base.endswith(":8000")
    person = Person("cancel")
    async with connect(http_target, AGENT_KEY, person=person) as client:
        done = body(
            await client.call_tool(
                "propose_program", {"language": "python", "source": transfer("1.05", "port")}
            )
        )
    [link] = person.links
    assert done["review_url"] == link.url == f"{http_target.base}/#/proposals/{done['id']}"


async def test_sluice_mcp_without_a_console_url_sends_no_link_and_says_what_to_set(
    stdio_target: Target,
) -> None:
    target = Target(
        "stdio", {k: v for k, v in stdio_target.env.items() if k != "SLUICE_CONSOLE_URL"}
    )
    person = Person("accept")
    async with connect(target, AGENT_KEY, person=person) as client:
        done = body(
            await client.call_tool(
                "propose_program", {"language": "python", "source": transfer("1.10", "no console")}
            )
        )
    assert done["status"] == "pending"
    assert done["review_url"] is None
    assert person.links == []  # no link to a page that may not be there
    assert "set SLUICE_CONSOLE_URL" in done["next"]
    assert f"`sluice confirm {done['id'][:8]}`" in done["next"]
    assert "8000/#/proposals" not in json.dumps(done)


async def test_proposal_status_takes_the_start_of_an_id(target: Target) -> None:
    async with connect(target, AGENT_KEY) as client:
        done = body(
            await client.call_tool(
                "propose_program", {"language": "python", "source": transfer("1.15", "short id")}
            )
        )
        status = body(await client.call_tool("proposal_status", {"id": done["id"][:8]}))
        nothing = await client.call_tool("proposal_status", {"id": "0000000"})
    assert status["id"] == done["id"] and status["status"] == "pending"
    assert nothing.is_error and "not-found: no proposal 0000000" in text(nothing)


async def test_a_proposals_answer_is_lean_and_names_the_agent_and_the_money(
    target: Target,
) -> None:
    async with connect(target, AGENT_KEY) as client:
        result = await client.call_tool(
            "propose_program", {"language": "python", "source": transfer("1.20", "lean")}
        )
        read = await client.call_tool(
            "propose_program", {"language": "python", "source": 'get_balance(account="alice")'}
        )
    done, answer = body(result), text(result)
    receipt = json.dumps(done["preview"]["result"], separators=(",", ":"), ensure_ascii=False)
    # The transfer's receipt is told by its call and as the program's result, no more.
    assert answer.count('"payer_balance"') == 2, answer
    assert len(answer.encode()) < 1800, len(answer.encode())
    assert receipt in answer and "outcome" not in done
    assert done["proposed_by"].startswith("alice's agent (key ")
    assert done["proposed_by"].endswith("over mcp)")
    assert done["moves"] == [
        {"payer": "alice", "payee": "bob", "amount": "1.20", "currency": "EUR"}
    ]
    # Once decided, the outcome says what the proposal does not: no second result.
    finished = body(read)
    assert finished["outcome"] == {"changed": "nothing", "events": []}
    # The balance: its call's answer and the program's result; not again in the outcome.
    assert text(read).count(str(finished["preview"]["result"])) == 2


async def test_the_question_to_the_person_names_the_agent_and_the_money(
    http_target: Target,
) -> None:
    person = Person("cancel")
    async with connect(http_target, AGENT_KEY, person=person) as client:
        await client.call_tool(
            "propose_program", {"language": "python", "source": transfer("1.25", "asked")}
        )
    [link] = person.links
    assert "Money it moves: alice pays bob 1.25 EUR." in link.message
    assert "A program by alice's agent (key " in link.message
    assert ", over mcp) would append 2 events" in link.message
