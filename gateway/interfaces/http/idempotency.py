"""Idempotency-Key: the same key with the same body replays the first final answer, writing
nothing.

The answer to a request that writes is appended in the same transaction as its effect, so
a crash can never leave an effect without its answer (or the reverse); two concurrent
requests with one key cannot both commit, as the answer's record can be created once.
Only final answers are kept: a request that lost a race (409), was rate limited (429) or
found the store or the sandbox unavailable (503) changed nothing, and its retry with the
same key runs again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from fastapi.responses import JSONResponse

from application.principals import PrincipalView
from application.results import Outcome
from domain.idempotency import IdempotentRequest
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.problem import PROBLEM_JSON, problem_body
from gateway.core.proposals import Recorder
from gateway.interfaces.http.problems import with_request_id

MAX_KEY = 255
# Answers that say "try again": never replayed.
RETRYABLE = frozenset({409, 429, 503})


def request_hash(path: str, body: Any) -> str:
    return hashlib.sha256(json.dumps([path, body], sort_keys=True).encode()).hexdigest()


def idempotent(
    gateway: Gateway,
    principal: PrincipalView,
    key: str | None,
    fingerprint: str,
    action: Callable[[Recorder | None], Outcome],
) -> Any:
    """Run `action` once per key; replay its answer (success or problem) for the same request."""
    if key is None:
        return action(None)
    if not 0 < len(key) <= MAX_KEY or not key.isprintable():
        raise GatewayError(
            "bad-request", f"Idempotency-Key must be 1 to {MAX_KEY} printable characters"
        )
    answered = _answered(gateway, principal, key, fingerprint)
    if answered is not None:
        return answered

    def record(answer: Outcome) -> IdempotentRequest:
        body = answer.model_dump(mode="json")
        return IdempotentRequest(
            principal=principal.name, key=key, request_hash=fingerprint, status=200, body=body
        )

    try:
        return action(record)
    except GatewayError as error:
        answered = _answered(gateway, principal, key, fingerprint)
        if answered is not None:
            return answered  # a concurrent request with this key committed first
        status, body = problem_body(error)
        if status in RETRYABLE:
            raise
        kept = IdempotentRequest(
            principal=principal.name, key=key, request_hash=fingerprint, status=status, body=body
        )
        # Another request with this key may have answered meanwhile; this one answers itself.
        gateway.keep_refusal(kept)
        raise


def _answered(
    gateway: Gateway, principal: PrincipalView, key: str, fingerprint: str
) -> JSONResponse | None:
    first = gateway.kept_answer(principal, key)
    if first is None:
        return None
    if first.request_hash != fingerprint:
        raise GatewayError(
            "idempotency-key-reused",
            f"Idempotency-Key {key!r} was first used with another request; use a new key",
        )
    if first.status >= 400:  # the first answer's problem, naming this request
        return JSONResponse(with_request_id(first.body), first.status, media_type=PROBLEM_JSON)
    return JSONResponse(first.body, status_code=first.status, media_type="application/json")
