"""The request a record belongs to: set by the HTTP server for each request, read by the
log handler, so every line logged while serving it (in any thread it runs on) names it."""

from __future__ import annotations

from contextvars import ContextVar

REQUEST_ID: ContextVar[str | None] = ContextVar("sluice_request_id", default=None)
