"""MCP sessions a client never ends are bounded (issue 13): each holds memory in the gateway
(about 40 KB) until it is closed, so they are closed once idle, and only so many are open."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.mcp.support import AGENT_KEY, INITIALIZE, SLUICE, store_env
from tests.served import serving

IDLE_SECONDS = 1
HEADERS = {"Authorization": f"Bearer {AGENT_KEY}", "Accept": "application/json, text/event-stream"}
INITIALIZED: dict[str, object] = {"jsonrpc": "2.0", "method": "notifications/initialized"}
DIRECTORY = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "directory", "arguments": {}}}  # fmt: skip


@pytest.fixture
def base(tmp_path: Path) -> Iterator[str]:
    env = store_env(f"sqlite://{tmp_path / 'sessions.db'}")
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
