"""The HTTP gateway: one FastAPI app over the facade; every handler runs off the event loop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache

import anyio
from fastapi import FastAPI
from starlette.routing import Route

from gateway.agent import Agent, AgentConfig
from gateway.bootstrap import Sluice
from gateway.core.policy.rate import RateLimiter
from gateway.core.read_side import ReadSide
from gateway.interfaces.console import router as console_router
from gateway.interfaces.http import docs, metrics, problems
from gateway.interfaces.http.body_limit import BodyLimit
from gateway.interfaces.http.domain_examples import in_domain_words
from gateway.interfaces.http.heap import trim_heap_periodically
from gateway.interfaces.http.request_log import RequestLog
from gateway.interfaces.http.routes import (
    agent,
    catalog,
    console,
    health,
    programs,
    reads,
    use_cases,
)
from gateway.interfaces.http.unexpected import UnexpectedErrors
from gateway.interfaces.mcp.http import PATH as MCP_PATH
from gateway.interfaces.mcp.http import McpOverHttp


def create_app(
    sluice: Sluice,
    *,
    max_body_bytes: int | None = None,
    projector: bool = False,
    host: str = "127.0.0.1",
    demo: bool = False,
) -> FastAPI:
    """The app; with `projector`, a background thread keeps the read models up to date.
    With `demo` (`sluice serve --demo`), the console's sign-in page names the demo keys.

    `host` is the interface served: on loopback, /mcp refuses other Host headers."""
    settings = sluice.settings
    request_limiter = RateLimiter(sluice.caps.requests_per_minute, sluice.request_counter)
    mcp = McpOverHttp(
        sluice.gateway,
        request_limiter,
        host=host,
        elicit=settings.mcp_elicitation == "on",
        state_keys=settings.mcp_state_keys,
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if projector:
            sluice.projector.start()
        try:
            async with mcp.sessions(), anyio.create_task_group() as background:
                # A long-lived server's RSS would otherwise creep up with freed heap.
                background.start_soon(trim_heap_periodically)
                yield
                background.cancel_scope.cancel()
        finally:
            if projector:
                sluice.projector.stop()

    # Handlers are plain `def`: FastAPI runs them in its thread pool, so a sandbox run or
    # a store call never blocks the event loop.
    app = FastAPI(
        lifespan=lifespan,
        # /docs and /redoc are served from local files (gateway/interfaces/http/docs.py).
        docs_url=None,
        redoc_url=None,
        title="Sluice",
        version="0.1.0",
        description=(
            "Business use cases that are also an agent's tools, behind a hardened gateway: "
            "permissions, caps, a preview, a confirmation, an all-or-nothing commit. "
            "Errors are RFC 9457 problem details."
        ),
    )
    app.state.sluice = sluice
    app.state.demo = demo
    app.state.read_side = ReadSide(sluice.gateway, wait_seconds=sluice.read_wait_seconds)
    app.state.request_limiter = request_limiter
    # Answers 503 on use when no model is configured.
    app.state.agent = Agent(
        sluice.gateway, AgentConfig.from_settings(settings), domain=sluice.domain
    )
    app.state.metrics = metrics.HttpMetrics(sluice)
    problems.install(app)
    documented = app.openapi
    # The examples in the served domain's words, made once (the document does not change).
    app.openapi = cache(lambda: in_domain_words(documented(), sluice.domain))  # type: ignore[method-assign]
    for module in (health, metrics, catalog, use_cases, programs):
        app.include_router(module.router)
    app.include_router(reads.router_for(sluice.domain))
    for module in (agent, console):
        app.include_router(module.router)
    app.include_router(console_router)
    app.include_router(docs.router)
    app.router.routes.append(
        Route(MCP_PATH, mcp.endpoint, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    )
    limit = max_body_bytes or settings.max_body_bytes
    app.add_middleware(BodyLimit, max_bytes=limit)
    app.add_middleware(UnexpectedErrors)  # an error in any of the others too
    # The outermost: the request id, the access line and the metrics of every answer.
    app.add_middleware(RequestLog, metrics=app.state.metrics)
    return app
