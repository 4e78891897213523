"""How runs read to callers: a proposal, and the outcome of a decided run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.run import COMMITTED, Run
from gateway.core.results import Outcome, Proposal


def proposal_json(run: Run) -> dict[str, Any]:
    """`{id, status, preview: {events, calls, result}, preview_hash, expires_at, ...}`."""
    return {
        "id": str(run.id),
        "status": run.status,
        "principal": run.principal,
        "kind": run.kind,
        "language": run.language,
        "source": run.source,
        "request": run.request,
        "preview": run.preview,
        "preview_hash": run.preview_hash,
        "expires_at": run.expires_at.isoformat(),
        "created_at": run.created_on.isoformat(),
        "confirmed_by": run.confirmed_by,
        "decided_by": run.decided_by,
        "error": run.error,
    }


def outcome_json(run: Run, positions: Sequence[int] | None = None) -> dict[str, Any]:
    """The authoritative fields: status, changed, events, result, error. `positions` are
    the log positions of the previewed events, in their order, once they are committed."""
    committed = run.status == COMMITTED
    events = run.preview.get("events", []) if committed else []
    placed = [
        {**event, "position": positions[i] if positions else None} for i, event in enumerate(events)
    ]
    return {
        "run_id": str(run.id),
        "status": run.status,
        "changed": len(placed) if placed else "nothing",
        "events": placed,
        "result": run.preview.get("result") if committed else None,
        "error": run.error,
    }


def outcome_of(run: Run, positions: Sequence[int] | None = None) -> Outcome:
    """The run's outcome, typed."""
    return Outcome.model_validate(outcome_json(run, positions))


def proposal_of(run: Run) -> Proposal:
    """The run as a proposal, with its outcome."""
    return Proposal.model_validate(proposal_json(run) | {"outcome": outcome_json(run)})
