"""Keeping read models up to date: catch up from the log a window at a time, exactly once.

Each window of the log is folded by a projection and written with its tracking position
in one transaction. Two processes catching up at once cannot apply a window twice: the
second insert of a tracking position that is not past the recorded one fails, its
transaction writes nothing, and it reads the new position and goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from eventsourcing.domain import AggregateEvent
from eventsourcing.persistence import IntegrityError, Notification, Tracking
from eventsourcing.utils import resolve_topic

from application.ledger import Ledger
from application.read_models.projections import (
    BalancesProjection,
    LedgerProjection,
    RunsProjection,
    StatementProjection,
)
from application.read_models.raw import plain_json
from application.read_models.view import PROJECTIONS, ReadModelView

LIVE, REPLAY = "rm_", "replay_"
Progress = Callable[[str, int, int, int], None]  # projection, position, target, events


class UnknownProjectionError(LookupError):
    def __init__(self, name: str) -> None:
        super().__init__(f"no projection {name}; the projections are {', '.join(PROJECTIONS)}")


@dataclass(frozen=True)
class CatchUp:
    projection: str
    position: int
    events: int


def open_view(ledger: Ledger, prefix: str) -> ReadModelView:
    """The read models of the ledger's own store (its persistence module makes them)."""
    module = ledger.env.get("PERSISTENCE_MODULE") or "eventsourcing.popo"
    try:
        make_view = resolve_topic(f"{module}:make_view")
    except Exception as error:
        raise RuntimeError(f"persistence module {module} serves no read models") from error
    view: ReadModelView = make_view(ledger.factory, prefix)
    return view


class ReadModels:
    def __init__(
        self, ledger: Ledger, view: ReadModelView, *, window: int = 2000, fast: bool | None = None
    ) -> None:
        self.ledger = ledger
        self.view = view
        self.window = window
        # Fold stored events without decoding them whole, where the log allows it.
        self.fast = plain_json(ledger) if fast is None else fast
        self.projections: dict[str, LedgerProjection] = {
            p.name: p(view) for p in (BalancesProjection, StatementProjection, RunsProjection)
        }

    def projection(self, name: str) -> LedgerProjection:
        try:
            return self.projections[name]
        except KeyError:
            raise UnknownProjectionError(name) from None

    def tracking_name(self, projection: str) -> str:
        return f"{self.ledger.name}:{self.view.prefix}{projection}"

    def position(self, projection: str) -> int:
        return self.view.max_tracking_id(self.tracking_name(projection)) or 0

    def head(self) -> int:
        return self.ledger.recorder.max_notification_id() or 0

    def catch_up(
        self,
        names: list[str] | None = None,
        *,
        to: int | None = None,
        progress: Progress | None = None,
    ) -> list[CatchUp]:
        """Bring projections up to `to` (default: the log's head now)."""
        target = self.head() if to is None else to
        return [self._catch_up(self.projection(n), target, progress) for n in names or PROJECTIONS]

    def reset(self, names: list[str] | None = None) -> None:
        for name in names or PROJECTIONS:
            self.projection(name)
            self.view.reset(name, self.tracking_name(name))

    def wait(self, position: int, timeout: float = 5.0) -> None:
        """Block until every projection has reached `position`, catching up if behind."""
        deadline = time.monotonic() + timeout
        while min(self.position(n) for n in PROJECTIONS) < position:
            self.catch_up(to=position)
            if time.monotonic() > deadline:
                raise TimeoutError(f"the read models did not reach position {position}")

    def _catch_up(
        self, projection: LedgerProjection, target: int, progress: Progress | None
    ) -> CatchUp:
        name = self.tracking_name(projection.name)
        processed = 0
        position = self.position(projection.name)
        while position < target:
            stop = min(target, position + self.window)
            notifications = self.ledger.recorder.select_notifications(
                position + 1, self.window, stop=stop, topics=projection.topics
            )
            try:
                self._process(projection, notifications, Tracking(name, stop))
            except IntegrityError:
                position = self.position(projection.name)  # another process applied it
                continue
            position = stop
            processed += len(notifications)
            if progress:
                progress(projection.name, position, target, processed)
        return CatchUp(projection.name, position, processed)

    def _process(
        self,
        projection: LedgerProjection,
        notifications: Sequence[Notification],
        tracking: Tracking,
    ) -> None:
        if self.fast and projection.process_stored(notifications, tracking):
            return
        events = []
        for notification in notifications:
            event = self.ledger.mapper.to_domain_event(notification)
            assert isinstance(event, AggregateEvent)
            events.append((event, notification.id))
        projection.process_batch(events, tracking)
