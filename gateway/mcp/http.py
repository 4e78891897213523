"""MCP over streamable HTTP, at /mcp on the gateway's own app: one port, one key per call.

The key is the same `Authorization: Bearer` API key as the rest of the API, and counts
against the same requests_per_minute cap. A request with none, or with an unknown or
revoked key, is answered 401 (with a JSON-RPC error the client can show) before the MCP
session sees it; each tool call then authenticates again, so revocation applies at once.
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
from gateway.http.deps import admit
from gateway.mcp.server import SluiceMCP
from gateway.policy.rate import RateLimiter

PATH = "/mcp"
# JSON-RPC leaves -32000 to -32099 to servers: this one means "no key that names anyone".
UNAUTHENTICATED = -32001
UNAVAILABLE = -32002
RATE_LIMITED = -32003


def bearer(headers: Any) -> str | None:
    """The API key of an `Authorization: Bearer KEY` header, if there is one."""
    value = headers.get("authorization") if headers is not None else None
    scheme, _, key = (value or "").partition(" ")
    return key.strip() or None if scheme.lower() == "bearer" else None


class BearerGate:
    """Refuse any MCP request whose key the gateway does not know (401), or whose principal
    is past its requests_per_minute cap (429)."""

    def __init__(self, gateway: Gateway, limiter: RateLimiter, app: ASGIApp) -> None:
        self.gateway = gateway
        self.limiter = limiter
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            key = bearer(Headers(scope=scope))
            try:
                # Both read the store: off the event loop.
                await anyio.to_thread.run_sync(self._admit, key)
            except GatewayError as error:
                await _refusal(error)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _admit(self, key: str | None) -> None:
        admit(self.limiter, self.gateway.authenticate(key))


def _refusal(error: GatewayError) -> JSONResponse:
    """In the words an MCP client reports: a JSON-RPC error (the request's id is not read,
    so it is null), with the HTTP status and headers of the refusal."""
    if error.kind == "rate-limited":
        status, code = 429, RATE_LIMITED
        headers = {"Retry-After": str(error.extra["retry_after"])}
        message = f"{error.kind}: {error}"
    else:
        status, code = 401, UNAUTHENTICATED
        headers = {"WWW-Authenticate": 'Bearer realm="sluice"'}
        message = f"{error.kind}: {error}; send `Authorization: Bearer <api key>`"
    return JSONResponse(
        {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}},
        status_code=status,
        headers=headers,
    )


class McpOverHttp:
    """The ASGI endpoint for PATH, and `sessions()`, the context its sessions live in.

    The app's lifespan enters `sessions()`; each entry gets a fresh session manager (one
    may run only once), so an app can be started more than once, as tests do."""

    def __init__(self, gateway: Gateway, limiter: RateLimiter, *, host: str, elicit: bool) -> None:
        def who(ctx: Context[Any, Any]) -> PrincipalView:
            return gateway.authenticate(bearer(ctx.headers))

        def console(ctx: Context[Any, Any]) -> str:
            request = ctx.request_context.request
            return str(request.base_url) if isinstance(request, Request) else "/"

        self.server = SluiceMCP(gateway, who, console, elicit=elicit)
        self.host = host
        self.endpoint = BearerGate(gateway, limiter, self._handle)
        self._manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def sessions(self) -> AsyncIterator[None]:
        # Builds a session manager, with DNS-rebinding checks when bound to loopback, and
        # bounded: sessions a client never ends are closed once idle, and there are so many
        # at most (a new one past that is answered 503).
        caps = self.server.gateway.caps
        self.server.streamable_http_app(
            streamable_http_path=PATH,
            host=self.host,
            max_sessions=caps.mcp_sessions,
            session_idle_timeout=caps.mcp_session_idle_seconds,
        )
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
