"""Request and response shapes, for validation and for the OpenAPI document (with examples).

The gateway's results (proposal, preview, outcome, call and event records, run stories,
sheets) are defined in application.results and named here again for the routes; a domain's
resources are its read use cases' own results (`gateway.interfaces.http.routes.reads`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from application.results import (
    HASH_EXAMPLE,
    CallRecord,
    EventRecord,
    LogEvent,
    Outcome,
    Preview,
    Proposal,
    RunStory,
    Sheet,
    StaleConfirmation,
)
from gateway.core.text_fields import MAX_REQUEST
from gateway.interfaces.http.problem_examples import EXAMPLES


class Shape(BaseModel):
    model_config = ConfigDict(extra="allow")


class ProgramRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "language": "python",
                    "source": 'transfer(payer="alice", payee="bob", amount=10, memo="lunch")',
                },
                {
                    "language": "plan",
                    "source": '{"steps": [{"tool": "get_balance", "args": {"account": "alice"}}]}',
                },
            ]
        },
    )

    language: Literal["python", "plan"] = Field(description="A Python program or a JSON plan.")
    source: str = Field(
        description="The program's text: printable (no control characters but tab and line "
        "breaks, no bidi controls).",
        max_length=20_000,
    )
    request: str | None = Field(
        default=None,
        description="The person's request, kept with the run for the audit: printable text.",
        max_length=MAX_REQUEST,
    )


class ConfirmRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"preview_hash": HASH_EXAMPLE}]}
    )

    preview_hash: str = Field(
        description="The hash of the preview being confirmed.", max_length=128
    )


class HealthCheck(Shape):
    name: str
    status: Literal["ok", "degraded"]
    detail: str | None = Field(default=None, description="For an admin's or auditor's key.")


class Health(Shape):
    """Anyone reads the status and each check's name and status; an admin's or auditor's
    key reads each check's detail and facts too."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "status": "ok",
                    "checks": [
                        {"name": "store", "status": "ok"},
                        {"name": "read_models", "status": "ok"},
                    ],
                },
                {
                    "status": "ok",
                    "store": "reachable",
                    "log_position": 30,
                    "read_models": "0 event(s) behind the log",
                    "dead_letters": 0,
                    "projection_lag": 0,
                    "checks": [
                        {"name": "store", "status": "ok", "detail": "reachable"},
                        {
                            "name": "read_models",
                            "status": "ok",
                            "detail": "0 event(s) behind the log",
                        },
                    ],
                },
            ]
        },
    )
    status: Literal["ok", "degraded"]
    store: str | None = Field(default=None, description="For an admin's or auditor's key.")
    log_position: int | None = Field(default=None, description="For an admin's or auditor's key.")
    read_models: str | None = None
    dead_letters: int | None = Field(
        default=None, description="Events the read models set aside (any makes /health 503)."
    )
    projection_lag: int | None = Field(
        default=None, description="Log positions the slowest read model is behind the head."
    )
    standby: str | None = Field(
        default=None, description="With SLUICE_READ_DATABASE_URL: the standby's check."
    )
    standby_lag_events: int | None = Field(
        default=None,
        description="Log positions the standby's read models are behind the primary's.",
    )
    standby_replay_lag_seconds: float | None = Field(
        default=None, description="How far behind the primary the standby's replay is."
    )
    checks: list[HealthCheck] = []


class Liveness(Shape):
    """The process answers: its event loop runs (nothing else is asked)."""

    status: Literal["ok"]


class Readiness(Shape):
    """Whether this process can serve: the event store answers within the deadline."""

    status: Literal["ready", "not ready"]
    checks: list[HealthCheck] = []


class Problem(Shape):
    """RFC 9457 problem details."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {"type": "urn:sluice:problem:refused",
                 "title": "A use case refused; nothing was written", "status": 422,
                 "detail": "transfer: no account dan (line 2, column 5)",
                 "run_id": "5b0c2f1e-0000-4000-8000-000000000000", "line": 2, "column": 5,
                 "refusal": "account-not-found"}
            ]
        },
    )  # fmt: skip

    type: str
    title: str
    status: int
    detail: str
    refusal: str | None = Field(
        default=None,
        description="When a business rule refused: which one, named after the domain's "
        "error in lower-case words joined by dashes.",
    )


class StaleProblem(Problem):
    """Confirming a stale preview: nothing was written; `proposal` is the proposal as it is
    now (without its outcome): a fresh preview to review and confirm when it is pending."""

    proposal: dict[str, Any] | None = Field(
        default=None,
        description="The proposal's fields as GET /v1/programs/{run_id} shows them, "
        "without `outcome`; absent when the proposal only kept changing while deciding it.",
    )


class PlanSchema(Shape):
    """A JSON Schema (draft 2020-12) that a plan must satisfy."""

    # A JSON Schema document is free JSON: any key is allowed (Shape's extra="allow").


def problem_response(
    description: str, model: type[Problem] = Problem, status: int | None = None
) -> dict[str, Any]:
    """A documented problem response: RFC 9457 JSON, as application/problem+json, with real
    examples of the status's problems."""
    media: dict[str, Any] = {}
    if status in EXAMPLES:
        media["examples"] = EXAMPLES[status]
    return {
        "model": model,
        "content": {"application/problem+json": media},
        "description": description,
    }


PROBLEMS: dict[int | str, dict[str, Any]] = {
    status: problem_response(text, status=status)
    for status, text in {
        400: "Malformed request",
        401: "No or unknown API key",
        403: "Not allowed for this principal",
        404: "No such resource",
        409: "Conflict: the store moved on",
        410: "The proposal has ended",
        413: "Body too large",
        422: "Refused: invalid program, cap, or a use case's refusal",
        429: "Rate limited",
    }.items()
}


__all__ = [
    "HASH_EXAMPLE",
    "PROBLEMS",
    "CallRecord",
    "ConfirmRequest",
    "EventRecord",
    "Health",
    "HealthCheck",
    "Liveness",
    "LogEvent",
    "Outcome",
    "PlanSchema",
    "Preview",
    "Problem",
    "ProgramRequest",
    "Proposal",
    "Readiness",
    "RunStory",
    "Sheet",
    "StaleConfirmation",
    "StaleProblem",
    "problem_response",
]
