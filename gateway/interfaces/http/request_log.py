"""Each request: a request id, one access line when it is answered, and its metrics.

The id is the client's `X-Request-ID` when it sends a sane one (1 to 64 of letters, digits
and `._:-`), else a new one; the answer carries it back in `X-Request-ID`, every problem
body in `request_id`, and every log line written while serving it in `request_id` (through
a context variable, so lines from the worker threads name it too).

The access line is an INFO record of logger `sluice.access`, written when the answer ends:
`GET /v1/accounts 200 3.1 ms`, with method, path, route (the template), status,
duration_ms, client and request_id as fields. An answer cut short (the client left, an
error after the answer began) is a line with status 499 or 500.
"""

from __future__ import annotations

import logging
import re
import time
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.interfaces.http.metrics import UNMATCHED, HttpMetrics
from gateway.logs.context import REQUEST_ID

HEADER = "x-request-id"
_SANE = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
CLIENT_CLOSED = 499

log = logging.getLogger("sluice.access")


def request_id_of(scope: Scope) -> str:
    for name, value in scope.get("headers", ()):
        if name == HEADER.encode():
            text: str = value.decode("latin-1")
            if _SANE.match(text):
                return text
            break
    return uuid.uuid4().hex


class RequestLog:
    def __init__(self, app: ASGIApp, metrics: HttpMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_of(scope)
        token = REQUEST_ID.set(request_id)
        started = time.perf_counter()
        status = CLIENT_CLOSED

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [(k, v) for k, v in message.get("headers", []) if k != HEADER.encode()]
                message = {**message, "headers": [*headers, (HEADER.encode(), request_id.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:
            status = 500 if status == CLIENT_CLOSED else status
            raise
        finally:
            self._answered(scope, request_id, status, time.perf_counter() - started)
            REQUEST_ID.reset(token)

    def _answered(self, scope: Scope, request_id: str, status: int, seconds: float) -> None:
        method, path = scope.get("method", ""), scope.get("path", "")
        found = scope.get("route")
        route = getattr(found, "path", None) or UNMATCHED
        self.metrics.observe(method, route, status, seconds)
        client = scope.get("client")
        milliseconds = round(seconds * 1000, 1)
        log.info(
            "%s %s %d %.1f ms", method, path, status, milliseconds,
            extra={
                "request_id": request_id, "method": method, "path": path, "route": route,
                "status": status, "duration_ms": milliseconds,
                "client": f"{client[0]}:{client[1]}" if client else None,
            },
        )  # fmt: skip
