"""Real problem documents, by status, for the OpenAPI document's examples.

Each is made by the code that makes the answer (`problem_document`), with a detail the
gateway really gives for that refusal; tests/http/test_openapi.py asks the server for some
of them and compares.
"""

from __future__ import annotations

from typing import Any

from gateway.core.problem import ProblemKind, problem_document

REQUEST_ID = "4f9d0c6e2b7a4d1c9e8f3a2b1c0d9e8f"
RUN_ID = "5b0c2f1e-0000-4000-8000-000000000000"


def _example(summary: str, kind: ProblemKind, detail: str, **extensions: Any) -> dict[str, Any]:
    value = problem_document(kind, detail, **extensions, request_id=REQUEST_ID)
    return {"summary": summary, "value": value}


EXAMPLES: dict[int, dict[str, dict[str, Any]]] = {
    400: {
        "not-json": _example("The body is not JSON", "bad-request", "the body is not valid JSON"),
    },
    401: {
        "no-key": _example(
            "No Authorization header",
            "unauthenticated",
            "send `Authorization: Bearer <api key>`",
        ),
        "unknown-key": _example(
            "A key that is unknown or revoked",
            "unauthenticated",
            "this API key is unknown or revoked",
        ),
    },
    403: {
        "not-yours": _example(
            "Another principal's account",
            "forbidden",
            "get_balance: account bob is not an account of principal alice",
        ),
    },
    404: {
        "no-proposal": _example(
            "No such proposal",
            "not-found",
            "no proposal 00000000-0000-4000-8000-000000000000",
        ),
    },
    409: {
        "stale": _example(
            "The accounts moved since the preview",
            "conflict",
            "the accounts this program read or wrote changed since the preview; nothing was "
            "written; here is a fresh preview to confirm",
            run_id=RUN_ID,
        ),
        "wrong-hash": _example(
            "A preview hash that is not the proposal's current one",
            "wrong-preview-hash",
            "preview_hash 000000000000... is not the current preview of proposal "
            f"{RUN_ID}; nothing was written; review the current preview and confirm its hash",
            run_id=RUN_ID,
        ),
    },
    410: {
        "expired": _example(
            "The proposal expired",
            "gone",
            f"proposal {RUN_ID} expired at 2026-12-01T10:15:00+00:00; nothing was written",
            run_id=RUN_ID,
        ),
    },
    413: {
        "too-large": _example(
            "A body over the limit",
            "payload-too-large",
            "the request body is over the limit of 65536 bytes",
        ),
    },
    422: {
        "refused": _example(
            "A use case refused",
            "refused",
            "transfer: no account dan (line 1, column 1)",
            run_id=RUN_ID,
            line=1,
            column=1,
            refusal="account-not-found",
        ),
        "invalid-request": _example(
            "A body that does not match its schema",
            "invalid-request",
            "body.language: Field required",
        ),
    },
    429: {
        "rate-limited": _example(
            "Too many requests",
            "rate-limited",
            "cap requests_per_minute: principal alice may make 120 requests a minute; "
            "retry in 12 s",
            retry_after=12,
        ),
    },
}
