"""What a terminal reports of one program: `sluice run`, `sluice confirm`, the shell, the chat."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from gateway.core.errors import GatewayError
from gateway.core.results import EventRecord, Outcome, Proposal


def _absent(value: object) -> bool:
    return value is None


class RunReport(BaseModel):
    """The gateway's fields (status, changed, events, result, error), and only when they say
    something: `run_id` of a proposal a person is to confirm, and `refusal`, the domain rule
    that refused (account-not-found, insufficient-funds, ...), named as HTTP problems name it.

    `status` is the gateway's, or `declined` when the person at the terminal said no, or
    `failed` when the gateway refused the program (`error` says why)."""

    model_config = ConfigDict(frozen=True)

    status: str
    changed: int | Literal["nothing"] = "nothing"
    events: list[EventRecord] = []
    result: Any = None
    error: str | None = None
    run_id: str | None = Field(default=None, exclude_if=_absent)
    refusal: str | None = Field(default=None, exclude_if=_absent)

    @classmethod
    def of(cls, outcome: Outcome, *, run_id: str | None = None) -> RunReport:
        """The outcome's fields; its run's id only when given."""
        return cls(
            status=outcome.status,
            changed=outcome.changed,
            events=outcome.events,
            result=outcome.result,
            error=outcome.error,
            run_id=run_id,
        )

    @classmethod
    def refused(cls, error: GatewayError) -> RunReport:
        """The gateway refused: nothing was written."""
        return cls(status="failed", error=str(error), refusal=error.named_refusal)

    @classmethod
    def waiting(cls, proposal: Proposal) -> RunReport:
        """A proposal left for a person to confirm: nothing is written yet."""
        return cls(status="pending", result=proposal.preview.result, run_id=proposal.id)

    @classmethod
    def declined(cls, proposal: Proposal) -> RunReport:
        """The person at the terminal said no: the proposal is rejected, nothing written."""
        return cls(status="declined", result=proposal.preview.result)
