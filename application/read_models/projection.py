"""The base of every projection: what each event does to the read models, folded a batch at
a time.

Each is an eventsourcing `Projection` over a `ReadModelStore`; `process_event` handles one
event (a live follower), `process_batch` many (catching up, replay) — the same fold, so a
rebuild and a live follower cannot disagree. The gateway keeps its runs
(`projections.RunsProjection`); a domain declares its own (`Domain.read_models`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing.domain import AggregateEvent
from eventsourcing.persistence import Notification, Tracking
from eventsourcing.projection import Projection

from application.read_models.store import ReadModelStore, Window

Positioned = tuple[AggregateEvent, int]


class LedgerProjection(Projection[ReadModelStore]):
    """A projection that folds a batch of events into one write of its read-model store
    (`self.view`, eventsourcing's name for a projection's tracking recorder)."""

    # The shape of the rows it keeps. A projection whose rows change shape takes the next
    # one, and with it a tracking name of its own (`ReadModels.tracking_name`): a store that
    # kept it in a former shape has no position under that name, so it is rebuilt from the
    # log's first event, never read half empty.
    shape = 1

    def process_event(self, domain_event: Any, tracking: Tracking) -> None:
        # eventsourcing's follower interface: one event, right after the recorded position.
        after = self.view.max_tracking_id(tracking.application_name) or 0
        window = Window(tracking.application_name, after, tracking.notification_id)
        self.process_batch([(domain_event, tracking.notification_id)], window)

    def process_batch(self, events: Sequence[Positioned], window: Window) -> None:
        raise NotImplementedError

    def process_stored(self, notifications: Sequence[Notification], window: Window) -> bool:
        """Fold stored events without decoding them whole; False if this projection cannot."""
        return False

    def rows(self) -> list[Any]:
        """Every row it keeps, in a stable order: a rebuild is compared with them."""
        raise NotImplementedError
