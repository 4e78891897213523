"""Errors as RFC 9457 problem details: a stable type per kind, the status users expect."""

from __future__ import annotations

import logging
import sys
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from gateway.core.errors import GatewayError
from gateway.core.problem import (
    PROBLEM_JSON,
    PROBLEMS,
    ProblemKind,
    problem_body,
    problem_document,
)
from gateway.logs.context import REQUEST_ID

log = logging.getLogger("sluice.http")


def problem(kind: ProblemKind, detail: str, **extensions: Any) -> JSONResponse:
    body = with_request_id(problem_document(kind, detail, **extensions))
    return JSONResponse(
        body,
        status_code=PROBLEMS[kind].status,
        media_type=PROBLEM_JSON,
        headers=_headers(kind, body),
    )


def from_gateway_error(error: GatewayError) -> JSONResponse:
    # The same document MCP-over-HTTP and Idempotency-Key replays carry.
    status, body = problem_body(error)
    body = with_request_id(body)
    return JSONResponse(
        body, status_code=status, media_type=PROBLEM_JSON, headers=_headers(error.kind, body)
    )


def with_request_id(body: dict[str, Any]) -> dict[str, Any]:
    """The problem with the id of the request it answers (gateway/interfaces/http/request_log.py),
    the one its log lines name."""
    request_id = REQUEST_ID.get()
    return body if request_id is None else {**body, "request_id": request_id}


def _headers(kind: str, body: dict[str, Any]) -> dict[str, str]:
    headers = {}
    if kind == "unauthenticated":
        headers["WWW-Authenticate"] = "Bearer"
    if "retry_after" in body:
        headers["Retry-After"] = str(body["retry_after"])
    return headers


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
        kinds: dict[int, ProblemKind] = {404: "not-found", 405: "method-not-allowed"}
        kind = kinds.get(error.status_code, "bad-request")
        response = problem(kind, _unparsed_body(error) or str(error.detail))
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

    # Any other error is answered by gateway/interfaces/http/unexpected.py, a middleware: an
    # `Exception` handler here would be called by Starlette, which then raises the error
    # again for the server to log a second time.
