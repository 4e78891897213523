"""What the MCP tools answer: lean (each fact once), and where a person reviews a proposal."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from application.money_moves import MoneyMove
from application.results import EventRecord, Preview, Proposal, ProposedVia, Sheet

NO_CONSOLE = (
    "This server knows no web console to link to: set SLUICE_CONSOLE_URL (or `sluice mcp "
    "--console-url`) to the address `sluice serve` serves, e.g. http://127.0.0.1:8000/."
)


class Sheets(BaseModel):
    """What find_actions answers."""

    sheets: list[Sheet]


def _absent(value: object) -> bool:
    return value is None


class ShownOutcome(BaseModel):
    """A decided proposal's outcome, less what the proposal already says (its id, status
    and result)."""

    changed: int | Literal["nothing"]
    events: list[EventRecord]
    error: str | None = Field(default=None, exclude_if=_absent)


class ShownProposal(BaseModel):
    """A proposal as the tools answer it, lean: each fact once (the result in the preview
    only, the outcome only once decided), where a person reviews it, and, while it waits,
    what comes next."""

    id: str
    status: str
    proposed_by: str = Field(description="The person, or the person's agent, and over what.")
    proposed_via: ProposedVia | None = Field(default=None, exclude_if=_absent)
    principal: str
    language: str
    request: str | None = Field(default=None, exclude_if=_absent)
    request_by: str | None = Field(default=None, exclude_if=_absent)
    moves: list[MoneyMove]
    preview: Preview
    preview_hash: str
    expires_at: str
    confirmed_by: str | None = Field(default=None, exclude_if=_absent)
    decided_by: str | None = Field(default=None, exclude_if=_absent)
    error: str | None = Field(default=None, exclude_if=_absent)
    outcome: ShownOutcome | None = Field(default=None, exclude_if=_absent)
    moved_since_preview: list[str] | None = Field(default=None, exclude_if=_absent)
    review_url: str | None
    next: str | None = Field(default=None, exclude_if=_absent)

    @classmethod
    def of(cls, proposal: Proposal, review_url: str | None, next_step: str | None) -> ShownProposal:
        outcome = proposal.outcome
        decided = proposal.status != "pending"
        return cls(
            **proposal.model_dump(include=set(cls.model_fields) - {"outcome", "preview"}),
            preview=proposal.preview,
            outcome=ShownOutcome(
                changed=outcome.changed, events=outcome.events, error=outcome.error
            )
            if decided
            else None,
            review_url=review_url,
            next=next_step,
        )
