"""MCP over stdio: `sluice mcp`, one principal named by SLUICE_API_KEY, for a desktop client."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context

from application.principals import PrincipalView
from gateway.facade import Gateway
from gateway.mcp.server import SluiceMCP


def serve_stdio(gateway: Gateway, key: str, *, console_url: str, elicit: bool) -> None:
    """Serve until the client closes stdin. The key is checked before, and at every call."""
    gateway.authenticate(key)  # a bad key fails here, with one clear line, not mid-session

    def who(_: Context[Any, Any]) -> PrincipalView:
        return gateway.authenticate(key)

    console = console_url if console_url.endswith("/") else console_url + "/"
    SluiceMCP(gateway, who, lambda _: console, elicit=elicit).run("stdio")
