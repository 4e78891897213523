"""How runs read to callers: a proposal, the outcome of a decided run, a run's whole story.

A run keeps its preview as the JSON it stored; that JSON is read into the typed preview and
events here, and every other field is the run's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypeVar, cast

from eventsourcing.domain import AggregateEvent

from application.money_moves import MoneyReader, no_money_moves
from application.results import (
    HistoryEntry,
    Outcome,
    Preview,
    Proposal,
    ProposedVia,
    RunStatus,
    RunStory,
    proposer_words,
    request_author,
)
from domain.run import COMMITTED, FAILED, Run

P = TypeVar("P", bound=Proposal)


def outcome_of(run: Run, positions: Sequence[int | None] | None = None) -> Outcome:
    """The authoritative fields: status, changed, events, result, error. `positions` are
    the log positions of the previewed events, in their order, once they are committed."""
    preview = preview_of(run) if run.status == COMMITTED else None
    events = preview.events if preview else []
    placed = [
        event.model_copy(update={"position": positions[i] if positions else None})
        for i, event in enumerate(events)
    ]
    return Outcome(
        run_id=str(run.id),
        status=run.status,
        changed=len(placed) if placed else "nothing",
        events=placed,
        result=preview.result if preview else None,
        error=run.error,
    )


def preview_of(run: Run) -> Preview:
    """The run's preview: the aggregate keeps it as the JSON of the one Preview type (the
    domain holds no model), read back here."""
    return Preview.model_validate(run.preview)


def proposal_of(run: Run, money_moves: MoneyReader = no_money_moves) -> Proposal:
    """The run as a proposal, with its outcome; `money_moves` is the served domain's
    reading of the money its events move."""
    return _as(Proposal, run, money_moves)


def story_of(
    run: Run, events: Sequence[object], money_moves: MoneyReader = no_money_moves
) -> RunStory:
    """The run as a proposal with its outcome, and the history its own `events` tell."""
    history = [
        HistoryEntry(
            type=type(e).__qualname__.rsplit(".", 1)[-1], timestamp=e.timestamp.isoformat()
        )
        for e in events
        if isinstance(e, AggregateEvent)
    ]
    return _as(RunStory, run, money_moves, history=history, committed_events=run.committed_events)


def _as(kind: type[P], run: Run, money_moves: MoneyReader, **more: Any) -> P:
    via = None if run.proposed_via is None else ProposedVia.model_validate(run.proposed_via)
    return kind(
        id=str(run.id),
        # The run's status is one of the domain's five; pydantic checks it all the same.
        status=cast(RunStatus, run.status),
        principal=run.principal,
        kind=run.kind,
        language=run.language,
        source=run.source,
        request=run.request,
        preview=preview_of(run),
        preview_hash=run.preview_hash,
        expires_at=run.expires_at.isoformat(),
        created_at=run.created_on.isoformat(),
        confirmed_by=run.confirmed_by,
        confirmed_at=_iso(run.confirmed_at),
        decided_by=run.decided_by,
        decided_at=_iso(run.decided_at),
        error=run.error,
        outcome=outcome_of(run),
        proposed_via=via,
        **described(run, via, money_moves),
        **more,
    )


def described(run: Run, via: ProposedVia | None, money_moves: MoneyReader) -> dict[str, Any]:
    """What a person deciding reads first, the same on every interface: who proposed it,
    whose words its request is, the money it moves (as the domain's `money_moves` reads its
    events), and whether it only reads."""
    events = run.preview.get("events", [])
    return {
        "proposed_by": proposer_words(run.principal, via),
        "request_by": None if run.request is None else request_author(run.principal, via),
        "moves": money_moves(events),
        "reads_only": run.kind == "program" and not events and run.status != FAILED,
    }


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()
