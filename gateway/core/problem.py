"""A refusal as an RFC 9457 problem document: a stable type per kind, the status users expect.

Interface-neutral: HTTP answers it as `application/problem+json`; MCP-over-HTTP carries it in
a JSON-RPC error's `data`. `PROBLEMS` is the one table from a kind to its status and title:
every kind of a gateway refusal (`ErrorKind`), and the two that only HTTP itself answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from application.inert_text import clip
from gateway.core.errors import MAX_ERROR_BYTES, ErrorKind, GatewayError

PROBLEM_JSON = "application/problem+json"
TYPE_PREFIX = "urn:sluice:problem:"

# What HTTP answers of its own, never a gateway refusal: a method the route does not take,
# an error the code did not expect.
HttpKind: TypeAlias = Literal["method-not-allowed", "internal"]
ProblemKind: TypeAlias = ErrorKind | HttpKind


@dataclass(frozen=True)
class ProblemType:
    """How a kind is answered: the HTTP status, and the title its problem type shows."""

    status: int
    title: str


PROBLEMS: dict[ProblemKind, ProblemType] = {
    "bad-request": ProblemType(400, "The request is malformed"),
    "unauthenticated": ProblemType(401, "An API key is required"),
    "forbidden": ProblemType(403, "Not allowed for this principal"),
    "not-found": ProblemType(404, "No such resource"),
    "method-not-allowed": ProblemType(405, "Method not allowed"),
    "conflict": ProblemType(409, "The store moved on; nothing was written"),
    "wrong-preview-hash": ProblemType(
        409, "That hash is not this proposal's current preview; nothing was written"
    ),
    "gone": ProblemType(410, "The proposal has ended"),
    "payload-too-large": ProblemType(413, "The request body is too large"),
    "invalid-program": ProblemType(422, "The program fails its checks"),
    "invalid-request": ProblemType(422, "The request body does not match its schema"),
    "cap-exceeded": ProblemType(422, "A cap was exceeded; nothing was written"),
    "refused": ProblemType(422, "A use case refused; nothing was written"),
    "idempotency-key-reused": ProblemType(
        422, "This Idempotency-Key was used with another request"
    ),
    "rate-limited": ProblemType(429, "Too many requests"),
    "internal": ProblemType(500, "Internal error"),
    "unavailable": ProblemType(503, "Not available"),
}


def problem_document(kind: ProblemKind, detail: str, **extensions: Any) -> dict[str, Any]:
    """The problem's fields; an extension that is None is left out."""
    problem_type = PROBLEMS[kind]
    return {
        "type": TYPE_PREFIX + kind,
        "title": problem_type.title,
        "status": problem_type.status,
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
    return PROBLEMS[error.kind].status, body
