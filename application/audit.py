"""From any committed event to the run that produced it (P9).

A commit appends the domain events, then the run's Confirmed and Committed events, in one
transaction; the log keeps them contiguous. So the first Run.Committed at or after an
event's position is its run, which the Committed event confirms by naming the event.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.domain import AggregateEvent
from eventsourcing.persistence import Notification
from eventsourcing.utils import get_topic

from application.bank.projections import ACCOUNT_TOPICS
from application.ledger import Ledger
from application.log import record
from application.money_moves import MoneyReader, no_money_moves
from application.results import RunStory
from application.runs import story_of
from domain.account import Account, account_id
from domain.run import Run

COMMITTED_TOPIC = get_topic(Run.Committed)


@dataclass(frozen=True)
class Provenance:
    position: int
    run_id: UUID
    principal: str
    kind: str
    language: str
    source: str
    source_sha256: str
    request: str | None
    preview_hash: str
    confirmed_by: str | None
    confirmed_at: str | None


def provenance(ledger: Ledger, position: int) -> Provenance | None:
    """The run behind the event at this position of the log, or None (not a run's event)."""
    found = ledger.recorder.select_notifications(position, 1)
    if not found or found[0].id != position:
        return None
    event = found[0]
    committed = ledger.recorder.select_notifications(position, 1, topics=[COMMITTED_TOPIC])
    if not committed:
        return None
    record = ledger.mapper.to_domain_event(committed[0])
    assert isinstance(record, Run.Committed)
    named = {(UUID(e["aggregate_id"]), int(e["version"])) for e in record.events}
    if (event.originator_id, event.originator_version) not in named:
        return None
    run: object = ledger.load_record(record.originator_id)
    assert isinstance(run, Run)
    return Provenance(
        position=position,
        run_id=run.id,
        principal=run.principal,
        kind=run.kind,
        language=run.language,
        source=run.source,
        source_sha256=hashlib.sha256(run.source.encode()).hexdigest(),
        request=run.request,
        preview_hash=run.preview_hash,
        confirmed_by=run.confirmed_by,
        confirmed_at=run.confirmed_at.isoformat() if run.confirmed_at else None,
    )


def provenance_json(found: Provenance | None) -> dict[str, Any] | None:
    if found is None:
        return None
    return {
        "run_id": str(found.run_id),
        "principal": found.principal,
        "kind": found.kind,
        "language": found.language,
        "confirmed_by": found.confirmed_by,
        "confirmed_at": found.confirmed_at,
        "request": found.request,
        "program_excerpt": _excerpt(found.source),
        "program_sha256": found.source_sha256,
        "preview_hash": found.preview_hash,
    }


def event_at(ledger: Ledger, position: int) -> dict[str, Any] | None:
    """One event of the log, with the run behind it."""
    found = ledger.recorder.select_notifications(position, 1)
    if not found or found[0].id != position:
        return None
    names = {account_id(name): name for name in ledger.account_names()}
    return record(ledger, found[0], names) | {"run": provenance_json(provenance(ledger, position))}


def account_timeline(ledger: Ledger, account: str) -> list[dict[str, Any]]:
    """Every event of an account, oldest first, each with its run, principal and confirmer."""
    ledger.load_account(account)  # AccountNotFoundError for an unknown account
    return [
        record(ledger, note, {account_id(account): account})
        | {"run": provenance_json(provenance(ledger, note.id))}
        for note in _account_notifications(ledger, account)
    ]


def as_of(
    ledger: Ledger, account: str, *, position: int | None = None, at: datetime | None = None
) -> dict[str, Any]:
    """The account's state at a point of the log (a position, or a time)."""
    ledger.load_account(account)
    version, reached = 0, 0
    for note in _account_notifications(ledger, account):
        event = ledger.mapper.to_domain_event(note)
        assert isinstance(event, AggregateEvent)
        if (position is not None and note.id > position) or (
            at is not None and event.timestamp > at
        ):
            break
        version, reached = event.originator_version, note.id
    if version == 0:
        return {"account": account, "exists": False, "position": position, "at": _iso(at)}
    state: object = ledger.repository.get(account_id(account), version=version)
    assert isinstance(state, Account)
    return {
        "account": account,
        "exists": True,
        "owner": state.owner,
        "balance": f"{state.balance:f}",
        "status": "closed" if state.closed else "open",
        "version": version,
        "last_event_position": reached,
        "position": position,
        "at": _iso(at),
    }


def run_story(ledger: Ledger, run_id: UUID, money_moves: MoneyReader = no_money_moves) -> RunStory:
    """The whole story of one run: request, program, preview, decision, events committed;
    its money read by the served domain's `money_moves`."""
    run: object = ledger.load_record(run_id)
    if not isinstance(run, Run):
        raise LookupError(f"no run {run_id}")
    return story_of(run, list(ledger.events.get(run_id)), money_moves)


def _account_notifications(ledger: Ledger, account: str) -> list[Notification]:
    wanted = account_id(account)
    found: list[Notification] = []
    start = 1
    while True:
        page = ledger.recorder.select_notifications(start, 5000, topics=list(ACCOUNT_TOPICS))
        found.extend(n for n in page if n.originator_id == wanted)
        if len(page) < 5000:
            return found
        start = page[-1].id + 1


def _excerpt(source: str, limit: int = 160) -> str:
    text = " ".join(source.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()
