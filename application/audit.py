"""From any committed event to the run that produced it (P9).

A commit appends the domain events, then the run's Confirmed and Committed events, in one
transaction; the log keeps them contiguous. So the first Run.Committed at or after an
event's position is its run, which the Committed event confirms by naming the event.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import AggregateEvent
from eventsourcing.persistence import Notification
from eventsourcing.utils import get_topic

from application.audited import AuditedRecord
from application.ledger import Ledger
from application.log import record, record_names
from application.money_moves import MoneyReader, no_money_moves
from application.results import RunStory
from application.runs import story_of
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


def event_at(
    ledger: Ledger, position: int, audited: Sequence[AuditedRecord] | None = None
) -> dict[str, Any] | None:
    """One event of the log, with the run behind it; `audited`, the served domain's kinds
    of records, name it (by default, those of the default domain)."""
    found = ledger.recorder.select_notifications(position, 1)
    if not found or found[0].id != position:
        return None
    names = record_names(ledger, audited)
    return record(ledger, found[0], names) | {"run": provenance_json(provenance(ledger, position))}


def timeline(ledger: Ledger, kind: AuditedRecord, key: str) -> list[dict[str, Any]]:
    """Every event of one record of a kind, oldest first, each with its run, principal and
    confirmer; the kind's refusal (`no account nobody`) for a key with no record."""
    _check_exists(ledger, kind, key)
    return [
        record(ledger, note, {kind.id_of(key): key})
        | {"run": provenance_json(provenance(ledger, note.id))}
        for note in _notifications(ledger, kind, key)
    ]


def as_of(
    ledger: Ledger,
    kind: AuditedRecord,
    key: str,
    *,
    position: int | None = None,
    at: datetime | None = None,
) -> dict[str, Any]:
    """One record's state at a point of the log (a position, or a time), as its kind tells
    it; the kind's refusal for a key with no record now."""
    _check_exists(ledger, kind, key)
    version, reached = 0, 0
    for note in _notifications(ledger, kind, key):
        event = ledger.mapper.to_domain_event(note)
        assert isinstance(event, AggregateEvent)
        if (position is not None and note.id > position) or (
            at is not None and event.timestamp > at
        ):
            break
        version, reached = event.originator_version, note.id
    if version == 0:
        return {kind.kind: key, "exists": False, "position": position, "at": _iso(at)}
    state: object = ledger.repository.get(kind.id_of(key), version=version)
    return {
        kind.kind: key,
        "exists": True,
        **kind.state(state),
        "version": version,
        "last_event_position": reached,
        "position": position,
        "at": _iso(at),
    }


# What `as_of` says of any record beside the state its kind tells.
_POINT = frozenset({"exists", "version", "last_event_position", "position", "at"})


def told(kind: AuditedRecord, found: dict[str, Any]) -> str:
    """The state an `as_of` found, in the words of its kind (`balance 5.00, open, ...`)."""
    return kind.told({k: v for k, v in found.items() if k not in _POINT and k != kind.kind})


def run_story(ledger: Ledger, run_id: UUID, money_moves: MoneyReader = no_money_moves) -> RunStory:
    """The whole story of one run: request, program, preview, decision, events committed;
    its money read by the served domain's `money_moves`."""
    run: object = ledger.load_record(run_id)
    if not isinstance(run, Run):
        raise LookupError(f"no run {run_id}")
    return story_of(run, list(ledger.events.get(run_id)), money_moves)


def _check_exists(ledger: Ledger, kind: AuditedRecord, key: str) -> None:
    try:
        ledger.repository.get(kind.id_of(key))
    except AggregateNotFoundError:
        raise kind.missing(key) from None


def _notifications(ledger: Ledger, kind: AuditedRecord, key: str) -> list[Notification]:
    wanted = kind.id_of(key)
    found: list[Notification] = []
    start = 1
    while True:
        page = ledger.recorder.select_notifications(start, 5000, topics=list(kind.topics))
        found.extend(n for n in page if n.originator_id == wanted)
        if len(page) < 5000:
            return found
        start = page[-1].id + 1


def _excerpt(source: str, limit: int = 160) -> str:
    text = " ".join(source.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()
