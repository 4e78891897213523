"""Audit checks from the log itself: a domain's books (the bank's balances recomputed, its
money conserved), and for every domain, each run's events contiguous and nothing set aside."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from eventsourcing.domain import AggregateEvent
from eventsourcing.utils import get_topic

from application.books import Books, Check
from application.ledger import Ledger
from application.read_models.service import ReadModels
from domain.run import Run

PAGE = 5000
COMMITTED_TOPIC = get_topic(Run.Committed)

__all__ = ["Check", "verify"]


def verify(
    ledger: Ledger,
    read_models: ReadModels,
    books: Books | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[int, list[Check]]:
    """Recompute from the log up to the position of the read model the domain's `books`
    compare with (the log's head without one), then check it all; `progress` is told the
    position read after each page, and the last position."""
    projection = None if books is None else books.projection
    position = read_models.head() if projection is None else read_models.position(projection)
    positions: dict[tuple[str, int], int] = {}
    committed_runs: list[tuple[int, list[dict[str, Any]]]] = []
    read = frozenset() if books is None else books.topics
    start = 1
    while start <= position:
        # Every event, so that a run's events of any domain are placed; only the books'
        # events and the commits of runs are decoded.
        page = ledger.recorder.select_notifications(start, PAGE, stop=position)
        for notification in page:
            if notification.topic == COMMITTED_TOPIC:
                committed = ledger.mapper.to_domain_event(notification)
                assert isinstance(committed, Run.Committed)
                committed_runs.append((notification.id, committed.events))
                continue
            originator = UUID(str(notification.originator_id))
            positions[(originator.hex, notification.originator_version)] = notification.id
            if books is not None and notification.topic in read:
                event = ledger.mapper.to_domain_event(notification)
                assert isinstance(event, AggregateEvent)
                books.read(event, notification.id)
        if len(page) < PAGE:
            break
        start = page[-1].id + 1
        if progress:
            progress(page[-1].id, position)
    if progress:
        progress(position, position)
    found = [] if books is None else books.checks(read_models)
    return position, [
        *found,
        _runs_contiguous(committed_runs, positions),
        _nothing_set_aside(read_models),
    ]


def _nothing_set_aside(read_models: ReadModels) -> Check:
    details = [
        f"{letter.projection} could not apply the event at position {letter.position}: "
        f"{letter.error}"
        for letter in read_models.dead_letters()
    ]
    return Check("no event set aside by a projection", not details, details)


def _runs_contiguous(
    committed_runs: list[tuple[int, list[dict[str, Any]]]], positions: dict[tuple[str, int], int]
) -> Check:
    details = []
    for committed_at, events in committed_runs:
        placed = sorted(
            positions.get((UUID(e["aggregate_id"]).hex, int(e["version"])), -1) for e in events
        )
        if placed and (placed[0] < 0 or placed != list(range(placed[0], placed[0] + len(placed)))):
            details.append(f"the run committed at position {committed_at} has events at {placed}")
    return Check("the events of each committed run are contiguous in the log", not details, details)
