"""MCP sessions a client never ends are bounded (issue 13): each holds memory in the gateway
(about 40 KB) until it is closed, so they are closed once idle, and only so many are open;
and only so many per principal (issue 14), so one key cannot use up everyone's."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path

import httpx
import pytest
from mcp.shared.exceptions import MCPError

from gateway.core.policy.caps import Caps
from gateway.settings import load_settings
from tests.mcp.support import (
    AGENT_KEY,
    HUMAN_KEY,
    INITIALIZE,
    SLUICE,
    Target,
    connect,
    store_env,
    text,
)
from tests.served import serving

IDLE_SECONDS = 1
PER_PRINCIPAL = 10  # the default of mcp_sessions_per_principal
HEADERS = {"Authorization": f"Bearer {AGENT_KEY}", "Accept": "application/json, text/event-stream"}
INITIALIZED: dict[str, object] = {"jsonrpc": "2.0", "method": "notifications/initialized"}
DIRECTORY = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "directory", "arguments": {}}}  # fmt: skip


@pytest.fixture
def base(tmp_path: Path) -> Iterator[str]:
    env = store_env(f"sqlite:///{tmp_path / 'sessions.db'}")
    env |= {"SLUICE_CAP_MCP_SESSIONS": "3", "SLUICE_CAP_MCP_SESSION_IDLE_SECONDS": "1"}
    with serving([SLUICE, "serve", "--demo"], env) as served:
        yield served


def open_session(client: httpx.Client) -> httpx.Response:
    """Initialize a session and leave it open, as a client that never sends DELETE does."""
    opened = client.post("/mcp", json=INITIALIZE)
    if opened.status_code == 200:
        assert use(client, opened.headers["mcp-session-id"], INITIALIZED).status_code == 202
    return opened


def use(client: httpx.Client, session: str, message: dict[str, object]) -> httpx.Response:
    version = str(INITIALIZE["params"]["protocolVersion"])  # type: ignore[index]
    headers = {"mcp-session-id": session, "mcp-protocol-version": version}
    return client.post("/mcp", json=message, headers=headers)


def test_sessions_never_ended_are_bounded_and_closed_once_idle(base: str) -> None:
    with httpx.Client(base_url=base, headers=HEADERS, timeout=30) as client:
        sessions = [open_session(client).headers["mcp-session-id"] for _ in range(3)]
        refused = open_session(client)
        assert refused.status_code == 503, refused.text
        assert "Too many open sessions" in refused.text
        assert use(client, sessions[0], DIRECTORY).status_code == 200  # the open ones work

        time.sleep(IDLE_SECONDS + 3)  # no request in flight: each session goes idle

        gone = use(client, sessions[0], DIRECTORY)
        assert gone.status_code == 404, gone.text  # the client starts a new session
        assert open_session(client).status_code == 200


@pytest.fixture
def defaults(tmp_path: Path) -> Iterator[Target]:
    """A served gateway with the default session caps."""
    env = store_env(f"sqlite:///{tmp_path / 'per-principal.db'}")
    with serving([SLUICE, "serve", "--demo"], env) as served:
        yield Target("http", env, served)


@pytest.mark.asyncio
async def test_one_principal_holds_at_most_its_sessions_and_others_still_connect(
    defaults: Target,
) -> None:
    """Issue 14: one key held 300 sessions until every client got 503. Now a principal holds
    at most mcp_sessions_per_principal (default 10); one more is refused 429 before any
    session is opened, other principals still connect, and an ended session frees a place."""
    base = defaults.base
    assert base is not None
    held = [AsyncExitStack() for _ in range(PER_PRINCIPAL)]
    try:
        clients = [
            await stack.enter_async_context(connect(defaults, AGENT_KEY, mode="legacy"))
            for stack in held
        ]
        # One more, by any key of alice's, is refused: her agent's or her own.
        for key in (AGENT_KEY, HUMAN_KEY):
            with pytest.raises(BaseException) as refused:
                async with connect(defaults, key, mode="legacy"):
                    pass
            error = _innermost(refused.value)
            assert isinstance(error, MCPError), repr(error)
            assert "cap mcp_sessions_per_principal: principal alice may hold 10 MCP" in str(error)
        raw = httpx.post(f"{base}/mcp", json=INITIALIZE, headers=HEADERS, timeout=30)
        assert raw.status_code == 429, raw.text
        assert raw.headers["retry-after"] == "300"
        answer = raw.json()["error"]
        assert answer["message"].startswith(
            "rate-limited: cap mcp_sessions_per_principal: principal alice may hold 10 MCP "
            "sessions open at once and holds 10; no session was opened"
        )
        assert answer["data"]["type"] == "urn:sluice:problem:rate-limited"
        assert answer["data"]["status"] == 429
        assert answer["data"]["detail"].startswith("cap mcp_sessions_per_principal")

        # Another principal connects, and alice's open sessions still work.
        async with connect(defaults, "sk-agent-demo-bob", mode="legacy") as bob:
            assert "get_balance" in text(await bob.call_tool("directory", {}))
        assert "get_balance" in text(await clients[0].call_tool("directory", {}))
        # A client of the 2026-07-28 protocol opens no session, so it is not held back.
        async with connect(defaults, AGENT_KEY, mode="auto") as sessionless:
            assert "get_balance" in text(await sessionless.call_tool("directory", {}))

        # Her client ends one session (DELETE): its place is hers again.
        await held.pop().aclose()
        async with connect(defaults, AGENT_KEY, mode="legacy") as again:
            assert "get_balance" in text(await again.call_tool("directory", {}))
    finally:
        for stack in reversed(held):  # in the order the clients' task groups allow
            await stack.aclose()


@pytest.fixture
def two_each(tmp_path: Path) -> Iterator[str]:
    env = store_env(f"sqlite:///{tmp_path / 'two-each.db'}")
    env |= {
        "SLUICE_CAP_MCP_SESSIONS_PER_PRINCIPAL": "2",
        "SLUICE_CAP_MCP_SESSION_IDLE_SECONDS": "1",
    }
    with serving([SLUICE, "serve", "--demo"], env) as served:
        yield served


def test_sessions_a_client_never_ends_give_back_their_places_once_idle(two_each: str) -> None:
    """The idle timeout gives back a principal's place as well as the process's."""
    with httpx.Client(base_url=two_each, headers=HEADERS, timeout=30) as client:
        for _ in range(2):
            assert open_session(client).status_code == 200
        refused = open_session(client)
        assert refused.status_code == 429, refused.text
        assert "cap mcp_sessions_per_principal" in refused.text

        time.sleep(IDLE_SECONDS + 3)  # no request in flight: each session goes idle

        assert open_session(client).status_code == 200


def test_the_session_caps_default_to_10_a_principal_and_300_idle_seconds() -> None:
    defaults = Caps()
    assert defaults.mcp_sessions_per_principal == 10
    assert defaults.mcp_session_idle_seconds == 300  # was 600
    caps = load_settings(
        {
            "SLUICE_CAP_MCP_SESSIONS_PER_PRINCIPAL": "4",
            "SLUICE_CAP_MCP_SESSION_IDLE_SECONDS": "60",
        }
    ).caps()
    assert (caps.mcp_sessions_per_principal, caps.mcp_session_idle_seconds) == (4, 60)


def _innermost(error: BaseException) -> BaseException:
    """The error an exception group, or a chain of them, was raised for."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error
