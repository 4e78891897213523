"""What a terminal reports of one program: `sluice run`, `sluice confirm`, the shell, the chat."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from application.results import EventRecord, Outcome, Proposal
from gateway.core.errors import GatewayError


def _absent(value: object) -> bool:
    return value is None


def _blank(value: object) -> bool:
    return not value


class RunReport(BaseModel):
    """The gateway's fields (status, changed, events, result, error), and only when they say
    something: `output`, what the program printed; `run_id` of a proposal a person is to
    confirm; and `refusal`, the domain rule that refused (account-not-found, ...), named as
    HTTP problems name it.

    `status` is the gateway's, or `declined` when the person at the terminal said not now
    (the proposal still waits), or `failed` when the gateway refused the program (`error`
    says why). The fields after `refusal` are for the words a person reads, not the JSON."""

    model_config = ConfigDict(frozen=True)

    status: str
    changed: int | Literal["nothing"] = "nothing"
    events: list[EventRecord] = []
    result: Any = None
    error: str | None = None
    output: str = Field(default="", exclude_if=_blank)
    run_id: str | None = Field(default=None, exclude_if=_absent)
    refusal: str | None = Field(default=None, exclude_if=_absent)
    # Confirming a proposal that had already ended: it is told as such, not as news.
    already: bool = Field(default=False, exclude=True)
    decided_by: str | None = Field(default=None, exclude=True)
    decided_at: str | None = Field(default=None, exclude=True)
    expires_at: str | None = Field(default=None, exclude=True)
    reads_only: bool = Field(default=False, exclude=True)

    @classmethod
    def of(cls, outcome: Outcome, *, run_id: str | None = None, output: str = "") -> RunReport:
        """The outcome's fields; its run's id only when given."""
        return cls(
            status=outcome.status,
            changed=outcome.changed,
            events=outcome.events,
            result=outcome.result,
            error=outcome.error,
            output=output if outcome.status == "committed" else "",
            run_id=run_id,
        )

    @classmethod
    def completed(cls, proposal: Proposal) -> RunReport:
        """A proposal that ended as it was made (a read completes at once): its outcome,
        and what the program printed."""
        return cls.of(proposal.outcome, output=proposal.preview.output).model_copy(
            update={"reads_only": proposal.reads_only}
        )

    @classmethod
    def ended(cls, proposal: Proposal) -> RunReport:
        """A proposal that had ended before this terminal was asked to decide it."""
        committed = proposal.status == "committed"
        return cls.of(proposal.outcome, run_id=proposal.id).model_copy(
            update={
                "already": True,
                "decided_by": proposal.confirmed_by if committed else proposal.decided_by,
                "decided_at": proposal.confirmed_at if committed else proposal.decided_at,
                "expires_at": proposal.expires_at,
                "reads_only": proposal.reads_only,
            }
        )

    @classmethod
    def refused(cls, error: GatewayError) -> RunReport:
        """The gateway refused: nothing was written."""
        return cls(status="failed", error=str(error), refusal=error.named_refusal)

    @classmethod
    def waiting(cls, proposal: Proposal) -> RunReport:
        """A proposal left for a person to confirm: nothing is written yet."""
        return cls(
            status="pending",
            result=proposal.preview.result,
            output=proposal.preview.output,
            run_id=proposal.id,
            expires_at=proposal.expires_at,
        )

    @classmethod
    def declined(cls, proposal: Proposal) -> RunReport:
        """The person at the terminal said not now: nothing written, the proposal waits."""
        return cls(
            status="declined",
            result=proposal.preview.result,
            run_id=proposal.id,
            expires_at=proposal.expires_at,
        )

    @classmethod
    def rejected(cls, proposal: Proposal) -> RunReport:
        """The person at the terminal rejected it for good: nothing written, ever."""
        return cls(
            status="rejected",
            result=proposal.preview.result,
            run_id=proposal.id,
            decided_by=proposal.decided_by,
            decided_at=proposal.decided_at,
        )
