"""A confirmation asked by one gateway process is answered on another (MCP 2026-07-28):
the `requestState` the first process sealed opens on the second when both are given the
same SLUICE_MCP_STATE_KEYS. With other keys the answer is refused, clearly, and nothing
is written. The question is the form of a client the operator trusts, answered by alice
with her own key: the one kind of answer that commits."""

from __future__ import annotations

import secrets
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.server.request_state import InvalidRequestState, RequestStateSecurity
from mcp.shared.exceptions import MCPError

from gateway.interfaces.mcp.state_keys import VARIABLE, request_state_security
from gateway.settings import SettingsError, load_settings
from tests.mcp.support import (
    HUMAN_KEY,
    SLUICE,
    TRUSTS_ALICE,
    Person,
    Target,
    balance,
    body,
    connect,
    store_env,
    transfer,
)
from tests.served import serving

ACCEPT: dict[str, Any] = {"confirm": types.ElicitResult(action="accept", content={"confirm": True})}


@contextmanager
def two_gateways(store: Path, first_keys: str, second_keys: str) -> Iterator[tuple[Target, Target]]:
    """Two `sluice serve` processes on one SQLite file, each with its own sealing keys."""
    env = store_env(f"sqlite:///{store}") | TRUSTS_ALICE
    first_env = {**env, "SLUICE_MCP_STATE_KEYS": first_keys}
    second_env = {**env, "SLUICE_MCP_STATE_KEYS": second_keys}
    with (
        serving([SLUICE, "serve", "--demo"], first_env) as first,
        serving([SLUICE, "serve", "--demo"], second_env) as second,
    ):
        yield Target("http", first_env, first), Target("http", second_env, second)


async def ask_on(target: Target, arguments: dict[str, str]) -> types.InputRequiredResult:
    """Propose on `target` and keep the question it asks, unanswered."""
    async with connect(target, HUMAN_KEY, person=Person()) as client:
        asked = await client.session.call_tool(
            "propose_program", arguments, allow_input_required=True
        )
    assert isinstance(asked, types.InputRequiredResult), asked
    assert asked.request_state is not None
    return asked


async def alice_balance(target: Target) -> Decimal:
    async with connect(target, HUMAN_KEY) as client:
        return await balance(client)


@pytest.mark.asyncio
async def test_a_confirmation_asked_on_one_process_commits_on_another(tmp_path: Path) -> None:
    keys = secrets.token_urlsafe(32)
    with two_gateways(tmp_path / "shared.db", keys, keys) as (first, second):
        before = await alice_balance(first)
        arguments = {"language": "python", "source": transfer("4.50", "across processes")}
        asked = await ask_on(first, arguments)
        async with connect(second, HUMAN_KEY, person=Person()) as client:
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


@pytest.mark.asyncio
async def test_other_keys_refuse_the_answer_and_write_nothing(tmp_path: Path) -> None:
    with two_gateways(tmp_path / "shared.db", secrets.token_hex(32), secrets.token_hex(32)) as (
        first,
        second,
    ):
        before = await alice_balance(first)
        arguments = {"language": "python", "source": transfer("4.50", "other keys")}
        asked = await ask_on(first, arguments)
        async with connect(second, HUMAN_KEY, person=Person()) as client:
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


def sealing(env: dict[str, str]) -> RequestStateSecurity:
    return request_state_security(load_settings(env).mcp_state_keys)


def test_keys_rotate_the_first_seals_and_all_open() -> None:
    old, new = secrets.token_hex(32), secrets.token_urlsafe(32)
    sealed_before = sealing({VARIABLE: old}).codec.seal(b"asked")
    during = sealing({VARIABLE: f"{new}, {old}"})
    sealed_during = during.codec.seal(b"asked again")
    after = sealing({VARIABLE: new})

    assert during.codec.unseal(sealed_before) == b"asked"
    assert after.codec.unseal(sealed_during) == b"asked again"
    with pytest.raises(InvalidRequestState):
        after.codec.unseal(sealed_before)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("not a key!", "key 1 of 1 is neither base64url nor hex; generate a key with: python"),
        ("00" * 16, "key 1 of 1 is 16 bytes; a key needs at least 32 random bytes (43 base64"),
        ("c2hvcnQ", "key 1 of 1 is 5 bytes; a key needs at least 32 random bytes"),
        (f"{'ab' * 32},,{'cd' * 32}", "key 2 of 3 is empty; separate keys with single commas"),
        (f"{'ab' * 32},{'AB' * 32}", "key 2 of 2 repeats key 1"),
    ],
)
def test_malformed_keys_are_refused_naming_the_variable(value: str, error: str) -> None:
    with pytest.raises(SettingsError) as refused:
        load_settings({VARIABLE: value})

    assert str(refused.value).startswith(f"{VARIABLE}: {error}")


@pytest.mark.parametrize("command", ["serve", "mcp"])
def test_a_gateway_with_malformed_keys_does_not_start(command: str, tmp_path: Path) -> None:
    good = store_env(f"sqlite:///{tmp_path / 'keys.db'}") | {"SLUICE_API_KEY": HUMAN_KEY}
    subprocess.run([SLUICE, "demo"], env=good, capture_output=True, check=True)
    env = good | {VARIABLE: "not a key!"}
    done = subprocess.run(
        [SLUICE, command, "--port", "1"] if command == "serve" else [SLUICE, command],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 2
    assert f"error: {VARIABLE}: key 1 of 1 is neither base64url nor hex" in " ".join(
        done.stderr.split()
    )
