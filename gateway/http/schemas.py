"""Request and response shapes, for validation and for the OpenAPI document (with examples)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

HASH_EXAMPLE = "9f2c" + "0" * 60


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
    source: str = Field(description="The program's text.", max_length=20_000)
    request: str | None = Field(
        default=None, description="The person's request, kept with the run for the audit."
    )


class ConfirmRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"preview_hash": HASH_EXAMPLE}]}
    )

    preview_hash: str = Field(
        description="The hash of the preview being confirmed.", max_length=128
    )


class Event(Shape):
    position: int | None = Field(description="Position in the log; null until committed.")
    account: str | None
    type: str
    version: int
    timestamp: str
    data: dict[str, Any]


class LogEvent(Event):
    aggregate_id: str


class Call(Shape):
    name: str
    arguments: dict[str, Any]
    result: Any
    line: int
    column: int
    events: int


class Preview(Shape):
    events: list[Event]
    calls: list[Call]
    result: Any = None
    output: str = ""
    caps: dict[str, Any] = {}
    error: str | None = None


class Outcome(Shape):
    """The gateway's authoritative fields."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "run_id": "5b0c2f1e-0000-4000-8000-000000000000",
                    "status": "committed",
                    "changed": 2,
                    "events": [],
                    "result": {"payer_balance": "90.00"},
                    "error": None,
                }
            ]
        },
    )

    run_id: str | None
    status: str
    changed: int | Literal["nothing"]
    events: list[Event]
    result: Any = None
    error: str | None


class Proposal(Shape):
    id: str
    status: Literal["pending", "committed", "failed", "rejected", "expired"]
    principal: str
    kind: str
    language: str
    source: str
    request: str | None
    preview: Preview
    preview_hash: str
    expires_at: str
    created_at: str
    confirmed_by: str | None
    decided_by: str | None
    error: str | None
    outcome: Outcome


class RunStory(Proposal):
    history: list[dict[str, Any]]


class AccountView(Shape):
    account: str
    owner: str
    balance: str = Field(description="Euros, two decimals, as text.")
    currency: str
    status: Literal["open", "closed"]


class StatementEntry(Shape):
    version: int
    kind: str
    amount: str
    balance: str
    counterparty: str | None
    memo: str
    timestamp: str


class Health(Shape):
    status: Literal["ok", "degraded"]
    store: str
    log_position: int | None = None


class Problem(Shape):
    """RFC 9457 problem details."""

    type: str
    title: str
    status: int
    detail: str


PROBLEMS: dict[int | str, dict[str, Any]] = {
    status: {"model": Problem, "content": {"application/problem+json": {}}, "description": text}
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
