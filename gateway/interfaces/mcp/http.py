"""MCP over streamable HTTP, at /mcp on the gateway's own app: one port, one key per call.

The key is the same `Authorization: Bearer` API key as the rest of the API, and counts
against the same requests_per_minute cap. A request with none, or with an unknown or
revoked key, is answered 401 (with a JSON-RPC error the client can show) before the MCP
session sees it; each tool call then authenticates again, so revocation applies at once.
A principal holding mcp_sessions_per_principal sessions is answered 429 when it asks for
one more, before the session is opened.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from application.principals import PrincipalView
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.policy.rate import RateLimiter
from gateway.core.problem import problem_body
from gateway.interfaces.mcp.server import SluiceMCP
from gateway.interfaces.mcp.session_quota import SessionQuota
from gateway.interfaces.mcp.state_keys import request_state_security

PATH = "/mcp"
# JSON-RPC leaves -32000 to -32099 to servers: this one means "no key that names anyone".
UNAUTHENTICATED = -32001
UNAVAILABLE = -32002
RATE_LIMITED = -32003
# The gate's next step, told who asks (None for what is not an HTTP request).
Serve = Callable[[PrincipalView | None, Scope, Receive, Send], Awaitable[None]]


def bearer(headers: Any) -> str | None:
    """The API key of an `Authorization: Bearer KEY` header, if there is one."""
    value = headers.get("authorization") if headers is not None else None
    scheme, _, key = (value or "").partition(" ")
    return key.strip() or None if scheme.lower() == "bearer" else None


class BearerGate:
    """Refuse any MCP request whose key the gateway does not know (401), or whose principal
    is past its requests_per_minute cap (429)."""

    def __init__(self, gateway: Gateway, limiter: RateLimiter, app: Serve) -> None:
        self.gateway = gateway
        self.limiter = limiter
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        principal = None
        if scope["type"] == "http":
            key = bearer(Headers(scope=scope))
            try:
                # Both read the store: off the event loop.
                principal = await anyio.to_thread.run_sync(self._admit, key)
            except GatewayError as error:
                await _refusal(error)(scope, receive, send)
                return
        await self.app(principal, scope, receive, send)

    def _admit(self, key: str | None) -> PrincipalView:
        principal = self.gateway.authenticate(key, "mcp")
        self.limiter.admit_request(principal)
        return principal


def _refusal(error: GatewayError) -> JSONResponse:
    """In the words an MCP client reports: a JSON-RPC error (the request's id is not read,
    so it is null), with the HTTP status and headers of the refusal, and the API's problem
    details as its data."""
    if error.kind == "rate-limited":
        status, code = 429, RATE_LIMITED
        headers = {"Retry-After": str(error.extra["retry_after"])}
        message = f"{error.kind}: {error}"
    else:
        status, code = 401, UNAUTHENTICATED
        headers = {"WWW-Authenticate": 'Bearer realm="sluice"'}
        message = f"{error.kind}: {error}; send `Authorization: Bearer <api key>`"
    _, problem = problem_body(error)
    return JSONResponse(
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": code, "message": message, "data": problem},
        },
        status_code=status,
        headers=headers,
    )


class McpOverHttp:
    """The ASGI endpoint for PATH, and `sessions()`, the context its sessions live in.

    The app's lifespan enters `sessions()`; each entry gets a fresh session manager (one
    may run only once), so an app can be started more than once, as tests do."""

    def __init__(
        self,
        gateway: Gateway,
        limiter: RateLimiter,
        *,
        host: str,
        elicit: bool,
        state_keys: Sequence[bytes] = (),
    ) -> None:
        def who(ctx: Context[Any, Any]) -> PrincipalView:
            return gateway.authenticate(bearer(ctx.headers), "mcp")

        def console(ctx: Context[Any, Any]) -> str:
            request = ctx.request_context.request
            return str(request.base_url) if isinstance(request, Request) else "/"

        self.server = SluiceMCP(
            gateway,
            who,
            console,
            elicit=elicit,
            state_security=request_state_security(state_keys),
        )
        self.host = host
        self.endpoint = BearerGate(gateway, limiter, self._handle)
        self._manager: StreamableHTTPSessionManager | None = None
        self._quota: SessionQuota | None = None

    @asynccontextmanager
    async def sessions(self) -> AsyncIterator[None]:
        # Builds a session manager, with DNS-rebinding checks when bound to loopback, and
        # bounded: sessions a client never ends are closed once idle, and there are so many
        # at most (a new one past that is answered 503), and so many per principal (429).
        caps = self.server.gateway.caps
        self.server.streamable_http_app(
            streamable_http_path=PATH,
            host=self.host,
            max_sessions=caps.mcp_sessions,
            session_idle_timeout=caps.mcp_session_idle_seconds,
        )
        manager = self.server.session_manager
        quota = SessionQuota(caps.mcp_sessions_per_principal)
        _report_ends(manager, quota.ended)
        async with manager.run():
            self._manager, self._quota = manager, quota
            try:
                yield
            finally:
                self._manager, self._quota = None, None

    async def _handle(
        self, principal: PrincipalView | None, scope: Scope, receive: Receive, send: Send
    ) -> None:
        manager, quota = self._manager, self._quota
        if manager is None or quota is None:
            response = JSONResponse(
                {"jsonrpc": "2.0", "id": None,
                 "error": {"code": UNAVAILABLE, "message": "unavailable: MCP is not running"}},
                status_code=503,
            )  # fmt: skip
            await response(scope, receive, send)
            return
        app = StreamableHTTPASGIApp(manager)
        headers = Headers(scope=scope)
        session = headers.get(MCP_SESSION_ID_HEADER)
        method = scope.get("method", "")
        if principal is not None and _opens_session(method, headers):
            await self._open(quota, principal, app)(scope, receive, send)
        elif method == "DELETE" and session:
            # Ended by its client: its place is free before the client hears so.
            await app(scope, receive, _on_success(send, lambda: quota.ended(session)))
        else:
            await app(scope, receive, send)

    def _open(
        self, quota: SessionQuota, principal: PrincipalView, app: StreamableHTTPASGIApp
    ) -> ASGIApp:
        """Open a session in a place of the principal's, or refuse it (429) with none free."""

        async def opening(scope: Scope, receive: Receive, send: Send) -> None:
            if not quota.reserve(principal.name):
                await _refusal(self._too_many_sessions(principal))(scope, receive, send)
                return
            opened: list[str] = []

            async def watch(message: Message) -> None:
                if message["type"] == "http.response.start" and not opened:
                    session = Headers(raw=message["headers"]).get(MCP_SESSION_ID_HEADER)
                    if message["status"] < 400 and session:
                        quota.opened(principal.name, session)
                        opened.append(session)
                await send(message)

            try:
                await app(scope, receive, watch)
            finally:
                if not opened:
                    quota.unreserve(principal.name)

        return opening

    def _too_many_sessions(self, principal: PrincipalView) -> GatewayError:
        caps = self.server.gateway.caps
        limit, idle = caps.mcp_sessions_per_principal, caps.mcp_session_idle_seconds
        sessions = "1 MCP session" if limit == 1 else f"{limit} MCP sessions"
        return GatewayError(
            "rate-limited",
            f"cap mcp_sessions_per_principal: principal {principal.name} may hold {sessions} "
            f"open at once and holds {limit}; no session was opened. End one (DELETE {PATH} "
            f"with its Mcp-Session-Id), or wait: a session with no request for {idle} s is "
            f"closed; retry in {idle} s",
            extra={"retry_after": idle},
        )


def _opens_session(method: str, headers: Headers) -> bool:
    """Whether the SDK opens a session for this request: a POST with no session id, in a
    protocol version that has sessions (from 2026-07-28 on, requests carry no session)."""
    version = headers.get(MCP_PROTOCOL_VERSION_HEADER)
    stateful = version is None or version in HANDSHAKE_PROTOCOL_VERSIONS
    return method == "POST" and MCP_SESSION_ID_HEADER not in headers and stateful


def _on_success(send: Send, then: Callable[[], None]) -> Send:
    """`send`, calling `then` before a response of status 2xx starts."""

    async def watched(message: Message) -> None:
        if message["type"] == "http.response.start" and 200 <= message["status"] < 300:
            then()
        await send(message)

    return watched


def _report_ends(manager: StreamableHTTPSessionManager, ended: Callable[[str], None]) -> None:
    """Call `ended(session id)` however a session ends. The SDK (mcp 2.x) forgets every
    session through `_discard_session`: after the client's DELETE, the idle timeout, a
    crash, a refused opening and at shutdown (tests/mcp/test_sessions.py fails if not)."""
    discard = manager._discard_session

    async def discarded(session_id: str, transport: StreamableHTTPServerTransport) -> None:
        ended(session_id)
        await discard(session_id, transport)

    manager._discard_session = discarded  # type: ignore[method-assign]
