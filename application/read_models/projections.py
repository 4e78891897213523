"""The gateway's own projection: runs (who proposed what, its status and counts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.domain import AggregateEvent
from eventsourcing.utils import get_topic

from application.read_models.projection import LedgerProjection, Positioned
from application.read_models.rows import RunChange
from application.read_models.store import Window
from domain.run import COMMITTED, EXPIRED, FAILED, PENDING, REJECTED, Run

RUN_TOPICS = tuple(
    get_topic(kind)
    for kind in (
        Run.Proposed,
        Run.Repreviewed,
        Run.Confirmed,
        Run.Committed,
        Run.Failed,
        Run.Rejected,
        Run.Expired,
    )
)


class RunsProjection(LedgerProjection):
    """runs: run id, principal, status, counts."""

    name = "runs"
    topics = RUN_TOPICS

    def process_batch(self, events: Sequence[Positioned], window: Window) -> None:
        changes: dict[str, RunChange] = {}
        for event, position in events:
            run_id = str(event.originator_id)
            change = changes.setdefault(run_id, RunChange(run_id))
            _fold_run(change, event, position)
        self.view.apply_runs(list(changes.values()), window)

    def rows(self) -> list[Any]:
        return self.view.runs()


def _fold_run(change: RunChange, event: AggregateEvent, position: int) -> None:
    when = event.timestamp.isoformat()
    if isinstance(event, Run.Proposed):
        change.principal, change.kind, change.language = event.principal, event.kind, event.language
        change.status, change.created_at, change.position = PENDING, when, position
        change.calls = len(event.preview.get("calls", []))
        change.previewed, change.committed = len(event.preview.get("events", [])), 0
    elif isinstance(event, Run.Repreviewed):
        change.calls = len(event.preview.get("calls", []))
        change.previewed = len(event.preview.get("events", []))
    elif isinstance(event, Run.Confirmed):
        change.confirmed_by = event.by
    elif isinstance(event, Run.Committed):
        change.status, change.committed, change.decided_at = COMMITTED, len(event.events), when
    elif isinstance(event, Run.Failed):
        change.status, change.error, change.decided_at = FAILED, event.error, when
    elif isinstance(event, Run.Rejected):
        change.status, change.decided_at = REJECTED, when
    elif isinstance(event, Run.Expired):
        change.status, change.decided_at = EXPIRED, when
