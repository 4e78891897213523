"""Errors as RFC 9457 problem details: a stable type per kind, the status users expect."""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from application.inert_text import clip
from gateway.errors import MAX_ERROR_BYTES, ErrorKind, GatewayError

PROBLEM_JSON = "application/problem+json"
TYPE_PREFIX = "urn:sluice:problem:"

STATUS: dict[str, int] = {
    "bad-request": 400,
    "unauthenticated": 401,
    "forbidden": 403,
    "not-found": 404,
    "method-not-allowed": 405,
    "conflict": 409,
    "gone": 410,
    "payload-too-large": 413,
    "invalid-program": 422,
    "invalid-request": 422,
    "cap-exceeded": 422,
    "refused": 422,
    "idempotency-key-reused": 422,
    "rate-limited": 429,
    "internal": 500,
    "unavailable": 503,
}
TITLES: dict[str, str] = {
    "bad-request": "The request is malformed",
    "unauthenticated": "An API key is required",
    "forbidden": "Not allowed for this principal",
    "not-found": "No such resource",
    "method-not-allowed": "Method not allowed",
    "conflict": "The store moved on; nothing was written",
    "gone": "The proposal has ended",
    "payload-too-large": "The request body is too large",
    "invalid-program": "The program fails its checks",
    "invalid-request": "The request body does not match its schema",
    "cap-exceeded": "A cap was exceeded; nothing was written",
    "refused": "A use case refused; nothing was written",
    "idempotency-key-reused": "This Idempotency-Key was used with another request",
    "rate-limited": "Too many requests",
    "internal": "Internal error",
    "unavailable": "Not available",
}
log = logging.getLogger("sluice.http")


def problem(kind: str, detail: str, **extensions: Any) -> JSONResponse:
    status = STATUS[kind]
    body = {
        "type": TYPE_PREFIX + kind,
        "title": TITLES[kind],
        "status": status,
        # It may quote the request (a field's name, a value): printable and bounded.
        "detail": clip(detail, MAX_ERROR_BYTES),
        **{k: v for k, v in extensions.items() if v is not None},
    }
    headers = {}
    if kind == "unauthenticated":
        headers["WWW-Authenticate"] = "Bearer"
    if "retry_after" in extensions:
        headers["Retry-After"] = str(extensions["retry_after"])
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def problem_body(error: GatewayError) -> tuple[int, dict[str, Any]]:
    response = from_gateway_error(error)
    return response.status_code, json.loads(bytes(response.body))


def from_gateway_error(error: GatewayError) -> JSONResponse:
    extra = dict(error.extra)
    return problem(
        error.kind,
        str(error),
        run_id=error.run_id,
        line=error.line,
        column=error.column,
        step=error.step,
        **extra,
    )


def _unparsed_body(error: StarletteHTTPException) -> str | None:
    """Why the body could not be read, when Python's JSON said more than FastAPI tells."""
    cause = error.__cause__
    if error.status_code == 400 and isinstance(cause, ValueError) and "digits" in str(cause):
        limit = sys.get_int_max_str_digits()
        return f"the body is not valid JSON: a number has more than {limit} digits"
    return None


def document_problems(document: dict[str, Any]) -> dict[str, Any]:
    """FastAPI files a response's model under the route's own media type (application/json,
    text/plain); a problem's body is application/problem+json, so its schema goes there."""
    for item in document.get("paths", {}).values():
        for operation in item.values():
            for response in operation.get("responses", {}).values():
                content = response.get("content", {})
                if PROBLEM_JSON not in content:
                    continue
                filed = [content.pop(media) for media in list(content) if media != PROBLEM_JSON]
                for entry in filed:
                    content[PROBLEM_JSON] |= entry
    return document


def install(app: FastAPI) -> None:
    build = app.openapi
    app.openapi = lambda: document_problems(build())  # type: ignore[method-assign]

    """Every error the app can give becomes a problem; bad input never becomes a 500."""

    @app.exception_handler(GatewayError)
    async def gateway_error(_: Request, error: GatewayError) -> JSONResponse:
        return from_gateway_error(error)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, error: RequestValidationError) -> JSONResponse:
        details = error.errors()
        if any(d.get("type") == "json_invalid" for d in details):
            return problem("bad-request", "the body is not valid JSON")
        lines = [f"{'.'.join(str(p) for p in d.get('loc', ()))}: {d.get('msg')}" for d in details]
        return problem("invalid-request", "; ".join(lines[:5]))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, error: StarletteHTTPException) -> JSONResponse:
        kind: ErrorKind | str = {404: "not-found", 405: "method-not-allowed"}.get(
            error.status_code, "bad-request"
        )
        response = problem(str(kind), _unparsed_body(error) or str(error.detail))
        response.headers.update(error.headers or {})  # 405 keeps its Allow header
        return response

    @app.exception_handler(OperationalError)
    @app.exception_handler(InterfaceError)
    async def store_unavailable(request: Request, error: Exception) -> JSONResponse:
        method, path = request.method, request.url.path
        log.warning(
            "the store failed on %s %s: %s", method, path, error,
            extra={"method": method, "path": path},
        )  # fmt: skip
        return problem("unavailable", f"the event store is not available: {error}", retry_after=1)

    # Any other error is answered by gateway/http/unexpected.py, a middleware: an
    # `Exception` handler here would be called by Starlette, which then raises the error
    # again for the server to log a second time.
