"""Refusals arrive as tool errors that name the thing and the reason; nothing is written and
no one is asked. Keys that name no one never reach a tool."""

from __future__ import annotations

import subprocess

import httpx
import mcp_types as types
import pytest

from tests.mcp.support import (
    AGENT_KEY,
    INITIALIZE,
    SLUICE,
    Person,
    Target,
    balance,
    body,
    connect,
    text,
    transfer,
)

REFUSALS = [
    (
        "permission",
        transfer("5", "not mine", payer="bob", payee="alice"),
        "forbidden: transfer: payer bob is not an account of principal alice (line 1, column 1)",
    ),
    (
        "cap",
        transfer("20000", "too much"),
        "cap-exceeded: ",
    ),
    (
        "type",
        'transfer(payer="alice", payee="bob", amount="5.00", memo="text")\n',
        "invalid-program: type error: Argument to function `transfer` is incorrect",
    ),
    ("syntax", "transfer(payer=\n", "invalid-program: "),
]


@pytest.mark.parametrize(("case", "source", "message"), REFUSALS, ids=[r[0] for r in REFUSALS])
@pytest.mark.asyncio
async def test_refusals_are_tool_errors_and_change_nothing(
    target: Target, case: str, source: str, message: str
) -> None:
    person = Person("accept")
    async with connect(target, AGENT_KEY, person=person) as client:
        before = await balance(client)
        refused = await client.call_tool(
            "propose_program", {"language": "python", "source": source}
        )
        after = await balance(client)
    assert refused.is_error, text(refused)
    assert message in text(refused)
    assert "propose_program" in text(refused)
    assert after == before and person.asked == []


PLAN_PAY_DAN = (
    '{"steps": [{"tool": "transfer", "args": {"payer": "alice", "payee": "dan", "amount": 1}}]}'
)


@pytest.mark.asyncio
async def test_a_use_cases_refusal_is_named_in_the_tool_error(target: Target) -> None:
    """As the HTTP problem's `refusal`: the domain rule that refused, in kebab case, in the
    error's structured content; its text still says the kind and the reason."""
    async with connect(target, AGENT_KEY) as client:
        before = await balance(client)
        program = await client.call_tool(
            "propose_program", {"language": "python", "source": transfer("1", "x", payee="dan")}
        )
        plan = await client.call_tool(
            "propose_program", {"language": "plan", "source": PLAN_PAY_DAN}
        )
        after = await balance(client)
    assert program.is_error and plan.is_error, (text(program), text(plan))
    assert "refused: transfer: no account dan (line 1, column 1)" in text(program)
    named = {
        name: {k: (result.structured_content or {}).get(k) for k in ("kind", "error", "refusal")}
        for name, result in (("program", program), ("plan", plan))
    }
    assert named == {
        "program": {
            "kind": "refused",
            "error": "transfer: no account dan (line 1, column 1)",
            "refusal": "account-not-found",
        },
        "plan": {
            "kind": "refused",
            "error": "transfer: no account dan (step 1)",
            "refusal": "account-not-found",
        },
    }
    assert after == before


@pytest.mark.asyncio
async def test_arguments_outside_the_tools_schema_are_refused(target: Target) -> None:
    async with connect(target, AGENT_KEY) as client:
        ruby = await client.call_tool("propose_program", {"language": "ruby", "source": "x"})
        empty = await client.call_tool("proposal_status", {"id": ""})
        unknown = await client.call_tool("proposal_status", {"id": "not-a-proposal"})
    assert ruby.is_error and "language" in text(ruby)
    assert empty.is_error and "id" in text(empty)
    assert unknown.is_error and "not-found: no proposal not-a-proposal" in text(unknown)


@pytest.mark.asyncio
async def test_a_plan_is_proposed_like_a_program(target: Target) -> None:
    plan = '{"steps": [{"tool": "get_balance", "args": {"account": "alice"}}]}'
    async with connect(target, AGENT_KEY) as client:
        done = body(await client.call_tool("propose_program", {"language": "plan", "source": plan}))
        expected = await balance(client)
    assert done["status"] == "committed" and done["language"] == "plan"
    assert done["outcome"]["changed"] == "nothing"
    assert str(expected) in str(done["preview"]["result"])


def test_stdio_needs_a_key_that_names_someone(stdio_target: Target) -> None:
    env = {k: v for k, v in stdio_target.env.items() if k != "SLUICE_API_KEY"}
    missing = subprocess.run(
        [SLUICE, "mcp"], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
        check=False,
    )  # fmt: skip
    unknown = subprocess.run(
        [SLUICE, "mcp"], env={**env, "SLUICE_API_KEY": "sk-nobody"}, capture_output=True,
        text=True, stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    assert missing.returncode == 2 and "SLUICE_API_KEY is not set" in missing.stderr
    assert missing.stdout == ""  # stdout is the protocol's: nothing else is written there
    assert unknown.returncode == 2
    assert "SLUICE_API_KEY: this API key is unknown or revoked" in " ".join(unknown.stderr.split())


@pytest.mark.parametrize("header", [None, "Bearer sk-nobody", "Basic YWxpY2U6eA=="])
def test_http_mcp_answers_401_to_a_key_that_names_no_one(
    http_target: Target, header: str | None
) -> None:
    headers = {"Accept": "application/json, text/event-stream"}
    if header:
        headers["Authorization"] = header
    answer = httpx.post(f"{http_target.base}/mcp", json=INITIALIZE, headers=headers)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"].startswith("Bearer")
    error = answer.json()["error"]
    assert (error["code"], answer.json()["id"]) == (-32001, None)
    assert error["message"].startswith("unauthenticated: ")
    assert "Authorization: Bearer <api key>" in error["message"]


@pytest.mark.asyncio
async def test_the_agent_cannot_forge_the_state_of_a_question(http_target: Target) -> None:
    """From 2026-07-28 the answer comes back with the state the server minted; a state the
    agent writes itself, naming a proposal it wants committed, is refused by the SDK."""
    async with connect(http_target, AGENT_KEY) as client:
        pending = body(
            await client.call_tool(
                "propose_program", {"language": "python", "source": transfer("4", "forge")}
            )
        )
        before = await balance(client)
        forged = f'{{"run": "{pending["id"]}", "preview_hash": "{pending["preview_hash"]}"}}'
        accept = types.ElicitResult(action="accept", content={"confirm": True})
        with pytest.raises(Exception, match="Invalid or expired requestState"):
            await client.session.call_tool(
                "propose_program",
                {"language": "python", "source": transfer("4", "forge")},
                input_responses={"confirm": accept},
                request_state=forged,
            )
        after = await balance(client)
        status = body(await client.call_tool("proposal_status", {"id": pending["id"]}))
    assert after == before and status["status"] == "pending"


@pytest.mark.parametrize(
    "header", [{"Host": "evil.example"}, {"Origin": "http://evil.example"}], ids=["host", "origin"]
)
def test_http_mcp_on_loopback_refuses_a_foreign_host_or_origin(
    http_target: Target, header: dict[str, str]
) -> None:
    """A web page on another name that resolves to loopback (DNS rebinding) gets nowhere,
    even with a key."""
    headers = {
        "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {AGENT_KEY}",
        **header,
    }
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    answer = httpx.post(f"{http_target.base}/mcp", json=ping, headers=headers)
    assert answer.status_code in (403, 421), answer.text
    assert "Host" in answer.text or "Origin" in answer.text
