"""Has a pending proposal's preview gone stale? The records it read or would write that
have moved on since: what a confirmation would meet as a conflict, told before anyone
decides (it tells no more than that 409 would)."""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

from application.kinds import noun
from application.ledger import Ledger
from domain.errors import DomainError
from domain.run import Run


def moved_since_preview(ledger: Ledger, run: Run) -> list[str]:
    """The keys of the records (or a listing's subject: "the set of accounts") whose version
    is not the one the preview saw, in the order the preview met them; [] when the preview
    is current."""
    expected = {UUID(k): v for k, v in run.read_versions.items()}
    for item in run.stored_events:
        written = UUID(item["originator_id"])
        before = int(item["originator_version"]) - 1
        expected[written] = min(expected.get(written, before), before)
    moved = []
    for aggregate_id, version in expected.items():
        last = ledger.recorder.select_events(aggregate_id, desc=True, limit=1)
        current = last[0].originator_version if last else 0
        if current != version:
            moved.append(_name(ledger, aggregate_id))
    return moved


def _name(ledger: Ledger, aggregate_id: UUID) -> str:
    """A record by its key (the string field its kind's `id_for` maps to its id), a listing
    by its subject, anything else by its kind's noun."""
    aggregate: object = ledger.repository.get(aggregate_id)
    kind = type(aggregate)
    subject = getattr(kind, "subject", None)
    if isinstance(subject, str):
        return subject
    id_for = getattr(kind, "id_for", None)
    if callable(id_for):
        for value in vars(aggregate).values():
            if isinstance(value, str) and value and _ids(id_for, value) == aggregate_id:
                return value
    return noun(kind)


def _ids(id_for: Callable[[str], UUID], value: str) -> UUID | None:
    try:
        return id_for(value)
    except (DomainError, ValueError):  # not a well-formed key of the kind
        return None
