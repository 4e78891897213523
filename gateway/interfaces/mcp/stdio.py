"""MCP over stdio: `sluice mcp`, one principal named by SLUICE_API_KEY, for a desktop client."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcp.server.mcpserver import Context

from application.principals import PrincipalView
from gateway import logs
from gateway.core.facade import Gateway
from gateway.interfaces.mcp.server import SluiceMCP
from gateway.interfaces.mcp.state_keys import request_state_security


def stdio_server(
    gateway: Gateway,
    key: str,
    *,
    console_url: str | None,
    elicit: bool,
    log_level: int,
    state_keys: Sequence[bytes] = (),
) -> SluiceMCP:
    """The server, ready to `run("stdio")` until the client closes stdin. The key is checked
    now, and at every call. Stdout is the protocol's: the logs are JSON lines on stderr,
    Sluice's before the MCP server is built and again after (its SDK sets up logging).
    Without `console_url` proposals carry no review link: a person confirms them with
    `sluice confirm`. `state_keys` seal MCP's requestState (SLUICE_MCP_STATE_KEYS)."""
    gateway.authenticate(key)  # a bad key fails here, with one clear line, not mid-session
    logs.install(log_level)

    def who(_: Context[Any, Any]) -> PrincipalView:
        return gateway.authenticate(key, "mcp")

    console = None
    if console_url:
        console = console_url if console_url.endswith("/") else console_url + "/"
    server = SluiceMCP(
        gateway,
        who,
        lambda _: console,
        elicit=elicit,
        state_security=request_state_security(state_keys),
    )
    logs.reclaim()
    return server
