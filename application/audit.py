"""From any committed event to the run that produced it (P9).

A commit appends the domain events, then the run's Confirmed and Committed events, in one
transaction; the log keeps them contiguous. So the first Run.Committed at or after an
event's position is its run, which the Committed event confirms by naming the event.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from uuid import UUID

from eventsourcing.utils import get_topic

from application.ledger import Ledger
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
    run: object = ledger.repository.get(record.originator_id)
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
