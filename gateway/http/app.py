"""The HTTP gateway: one FastAPI app over the facade; every handler runs off the event loop."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from gateway.agent import Agent
from gateway.bootstrap import Sluice
from gateway.console import router as console_router
from gateway.http import problems
from gateway.http.body_limit import BodyLimit
from gateway.http.routes import agent, catalog, health, programs, reads, use_cases
from gateway.policy.rate import RateLimiter
from gateway.read_side import ReadSide

DEFAULT_MAX_BODY_BYTES = 64 * 1024


def create_app(
    sluice: Sluice, *, max_body_bytes: int | None = None, projector: bool = False
) -> FastAPI:
    """The app; with `projector`, a background thread keeps the read models up to date."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if projector:
            sluice.projector.start()
        try:
            yield
        finally:
            if projector:
                sluice.projector.stop()

    # Handlers are plain `def`: FastAPI runs them in its thread pool, so a sandbox run or
    # a store call never blocks the event loop.
    app = FastAPI(
        lifespan=lifespan,
        title="Sluice",
        version="0.1.0",
        description=(
            "Business use cases that are also an agent's tools, behind a hardened gateway: "
            "permissions, caps, a preview, a confirmation, an all-or-nothing commit. "
            "Errors are RFC 9457 problem details."
        ),
    )
    app.state.sluice = sluice
    app.state.read_side = ReadSide(sluice.gateway)
    app.state.request_limiter = RateLimiter(sluice.caps.requests_per_minute)
    app.state.agent = Agent(sluice.gateway)  # answers 503 on use when no model is configured
    problems.install(app)
    for module in (health, catalog, use_cases, programs, reads, agent):
        app.include_router(module.router)
    app.include_router(console_router)
    limit = max_body_bytes or int(os.environ.get("SLUICE_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES))
    app.add_middleware(BodyLimit, max_bytes=limit)
    return app
