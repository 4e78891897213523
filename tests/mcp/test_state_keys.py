"""A confirmation asked by one gateway process is answered on another (MCP 2026-07-28):
the `requestState` the first process sealed opens on the second when both are given the
same SLUICE_MCP_STATE_KEYS. With other keys the answer is refused, clearly, and nothing
is written."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.mcp.support import (
    AGENT_KEY,
    HUMAN_KEY,
    SLUICE,
    Person,
    Target,
    balance,
    body,
    connect,
    store_env,
    transfer,
)
from tests.served import serving

pytestmark = pytest.mark.asyncio
ACCEPT = {"confirm": types.ElicitResult(action="accept", content={"confirm": True})}


@contextmanager
def two_gateways(store: Path, first_keys: str, second_keys: str) -> Iterator[tuple[Target, Target]]:
    """Two `sluice serve` processes on one SQLite file, each with its own sealing keys."""
    env = store_env(f"sqlite://{store}")
    first_env = {**env, "SLUICE_MCP_STATE_KEYS": first_keys}
    second_env = {**env, "SLUICE_MCP_STATE_KEYS": second_keys}
    with (
        serving([SLUICE, "serve", "--demo"], first_env) as first,
        serving([SLUICE, "serve", "--demo"], second_env) as second,
    ):
        yield Target("http", first_env, first), Target("http", second_env, second)


async def ask_on(target: Target, arguments: dict[str, str]) -> types.InputRequiredResult:
    """Propose on `target` and keep the question it asks, unanswered."""
    async with connect(target, AGENT_KEY, person=Person()) as client:
        asked = await client.session.call_tool(
            "propose_program", arguments, allow_input_required=True
        )
    assert isinstance(asked, types.InputRequiredResult), asked
    assert asked.request_state is not None
    return asked


async def alice_balance(target: Target) -> Decimal:
    async with connect(target, HUMAN_KEY) as client:
        return await balance(client)


async def test_a_confirmation_asked_on_one_process_commits_on_another(tmp_path: Path) -> None:
    keys = secrets.token_hex(32)
    with two_gateways(tmp_path / "shared.db", keys, keys) as (first, second):
        before = await alice_balance(first)
        arguments = {"language": "python", "source": transfer("4.50", "across processes")}
        asked = await ask_on(first, arguments)
        async with connect(second, AGENT_KEY, person=Person()) as client:
            answered = await client.session.call_tool(
                "propose_program",
                arguments,
                input_responses=ACCEPT,
                request_state=asked.request_state,
                allow_input_required=True,
            )
        assert isinstance(answered, types.CallToolResult)
        done = body(answered)
        assert done["status"] == "committed" and done["confirmed_by"] == "alice"
        assert await alice_balance(first) == before - Decimal("4.50")


async def test_other_keys_refuse_the_answer_and_write_nothing(tmp_path: Path) -> None:
    with two_gateways(tmp_path / "shared.db", secrets.token_hex(32), secrets.token_hex(32)) as (
        first,
        second,
    ):
        before = await alice_balance(first)
        arguments = {"language": "python", "source": transfer("4.50", "other keys")}
        asked = await ask_on(first, arguments)
        async with connect(second, AGENT_KEY, person=Person()) as client:
            with pytest.raises(MCPError) as refused:
                await client.session.call_tool(
                    "propose_program",
                    arguments,
                    input_responses=ACCEPT,
                    request_state=asked.request_state,
                    allow_input_required=True,
                )
        message = str(refused.value)
        assert message.startswith("Invalid or expired requestState")
        assert "SLUICE_MCP_STATE_KEYS" in message and "nothing was written" in message
        assert await alice_balance(first) == before
        assert await alice_balance(second) == before
