"""MCP over stdio: `sluice mcp`, one principal named by SLUICE_API_KEY, for a desktop client."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from application.principals import PrincipalView
from gateway import logs
from gateway.core.facade import Gateway
from gateway.interfaces.mcp.server import SluiceMCP


def stdio_server(
    gateway: Gateway, key: str, *, console_url: str | None, elicit: bool, log_level: int
) -> SluiceMCP:
    """The server, ready to `run("stdio")` until the client closes stdin. The key is checked
    now, and at every call. Stdout is the protocol's: the logs are JSON lines on stderr,
    Sluice's before the MCP server is built and again after (its SDK sets up logging).
    Without `console_url` proposals carry no review link: a person confirms them with
    `sluice confirm`."""
    gateway.authenticate(key)  # a bad key fails here, with one clear line, not mid-session
    logs.install(log_level)

    def who(_: Context[Any, Any]) -> PrincipalView:
        return gateway.authenticate(key, "mcp")

    console = None
    if console_url:
        console = console_url if console_url.endswith("/") else console_url + "/"
    server = SluiceMCP(gateway, who, lambda _: console, elicit=elicit)
    logs.reclaim()
    return server
