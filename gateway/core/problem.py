"""A refusal as an RFC 9457 problem document: a stable type per kind, the status users expect.

Interface-neutral: HTTP answers it as `application/problem+json`; MCP-over-HTTP carries it in
a JSON-RPC error's `data`.
"""

from __future__ import annotations

from typing import Any

from application.inert_text import clip
from gateway.core.errors import MAX_ERROR_BYTES, GatewayError

PROBLEM_JSON = "application/problem+json"
TYPE_PREFIX = "urn:sluice:problem:"

STATUS: dict[str, int] = {
    "bad-request": 400,
    "unauthenticated": 401,
    "forbidden": 403,
    "not-found": 404,
    "method-not-allowed": 405,
    "conflict": 409,
    "wrong-preview-hash": 409,
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
    "wrong-preview-hash": "That hash is not this proposal's current preview; nothing was written",
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


def problem_document(kind: str, detail: str, **extensions: Any) -> dict[str, Any]:
    """The problem's fields; an extension that is None is left out."""
    return {
        "type": TYPE_PREFIX + kind,
        "title": TITLES[kind],
        "status": STATUS[kind],
        # It may quote the request (a field's name, a value): printable and bounded.
        "detail": clip(detail, MAX_ERROR_BYTES),
        **{k: v for k, v in extensions.items() if v is not None},
    }


def problem_body(error: GatewayError) -> tuple[int, dict[str, Any]]:
    """The status and the problem document of a gateway refusal."""
    body = problem_document(
        error.kind,
        str(error),
        run_id=error.run_id,
        line=error.line,
        column=error.column,
        step=error.step,
        refusal=error.named_refusal,
        **error.extra,
    )
    return STATUS[error.kind], body
