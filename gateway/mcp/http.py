"""MCP over streamable HTTP, at /mcp on the gateway's own app: one port, one key per call.

The key is the same `Authorization: Bearer` API key as the rest of the API. A request with
none, or with an unknown or revoked key, is answered 401 (with a JSON-RPC error the client
can show) before the MCP session sees it;
each tool call then authenticates its own request again, so revocation applies at once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from application.principals import PrincipalView
from gateway.errors import GatewayError
from gateway.facade import Gateway
from gateway.mcp.server import SluiceMCP

PATH = "/mcp"
# JSON-RPC leaves -32000 to -32099 to servers: this one means "no key that names anyone".
UNAUTHENTICATED = -32001
UNAVAILABLE = -32002


def bearer(headers: Any) -> str | None:
    """The API key of an `Authorization: Bearer KEY` header, if there is one."""
    value = headers.get("authorization") if headers is not None else None
    scheme, _, key = (value or "").partition(" ")
    return key.strip() or None if scheme.lower() == "bearer" else None


class BearerGate:
    """Refuse, with a 401 problem, any MCP request whose key the gateway does not know."""

    def __init__(self, gateway: Gateway, app: ASGIApp) -> None:
        self.gateway = gateway
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            key = bearer(Headers(scope=scope))
            try:
                await anyio.to_thread.run_sync(self.gateway.authenticate, key)
            except GatewayError as error:
                await _unauthenticated(error)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _unauthenticated(error: GatewayError) -> JSONResponse:
    """401, in the words an MCP client reports: a JSON-RPC error (the request's id is not
    read, so it is null), beside the Bearer challenge."""
    message = f"{error.kind}: {error}; send `Authorization: Bearer <api key>`"
    return JSONResponse(
        {"jsonrpc": "2.0", "id": None, "error": {"code": UNAUTHENTICATED, "message": message}},
        status_code=401,
        headers={"WWW-Authenticate": 'Bearer realm="sluice"'},
    )


class McpOverHttp:
    """The ASGI endpoint for PATH, and `sessions()`, the context its sessions live in.

    The app's lifespan enters `sessions()`; each entry gets a fresh session manager (one
    may run only once), so an app can be started more than once, as tests do."""

    def __init__(self, gateway: Gateway, *, host: str, elicit: bool) -> None:
        def who(ctx: Context[Any, Any]) -> PrincipalView:
            return gateway.authenticate(bearer(ctx.headers))

        def console(ctx: Context[Any, Any]) -> str:
            request = ctx.request_context.request
            return str(request.base_url) if isinstance(request, Request) else "/"

        self.server = SluiceMCP(gateway, who, console, elicit=elicit)
        self.host = host
        self.endpoint = BearerGate(gateway, self._handle)
        self._manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def sessions(self) -> AsyncIterator[None]:
        # Builds a session manager, with DNS-rebinding checks when bound to loopback.
        self.server.streamable_http_app(streamable_http_path=PATH, host=self.host)
        manager = self.server.session_manager
        async with manager.run():
            self._manager = manager
            try:
                yield
            finally:
                self._manager = None

    async def _handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._manager is None:
            response = JSONResponse(
                {"jsonrpc": "2.0", "id": None,
                 "error": {"code": UNAVAILABLE, "message": "unavailable: MCP is not running"}},
                status_code=503,
            )  # fmt: skip
            await response(scope, receive, send)
            return
        await StreamableHTTPASGIApp(self._manager)(scope, receive, send)
