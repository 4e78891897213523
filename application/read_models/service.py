"""Keeping read models up to date: catch up from the log a window at a time, exactly once.

Each window (after, upto] of the log is folded by a projection and written with its
tracking position in one transaction, and only if the recorded position is still `after`
(see `view.Window`). Any number of projectors and catch-ups may run at once, in any number
of processes: an applier whose window went stale writes nothing, reads the new position and
goes on from there.

A window that fails for another reason than the store being unavailable is applied again
one event at a time; an event that still fails is a dead letter: kept aside with its
position and error, in the same transaction that moves the projection past it, so one
poison event never stops the read side. `sluice replay` rebuilds, which retries them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from eventsourcing.domain import AggregateEvent
from eventsourcing.persistence import InterfaceError, Notification, OperationalError
from eventsourcing.utils import Environment, resolve_topic

from application.ledger import Ledger
from application.read_models.declared import NO_READ_MODELS, DomainReadModels
from application.read_models.projection import LedgerProjection
from application.read_models.projections import RunsProjection
from application.read_models.raw import plain_json
from application.read_models.rows import DeadLetter
from application.read_models.store import ReadModelStore, StaleWindowError, Window

LIVE, REPLAY = "rm_", "replay_"
Progress = Callable[[str, int, int, int], None]  # projection, position, target, events
# The store could not be reached or timed out: try the window again later, never set it aside.
TRANSIENT = (OperationalError, InterfaceError)
MAX_ERROR = 500
log = logging.getLogger("sluice.projector")


class UnknownProjectionError(LookupError):
    def __init__(self, name: str, names: list[str]) -> None:
        super().__init__(f"no projection {name}; the projections are {', '.join(names)}")


@dataclass(frozen=True)
class CatchUp:
    projection: str
    position: int
    events: int


def open_read_model_store(ledger: Ledger, prefix: str) -> ReadModelStore:
    """The read models of the ledger's own store (its persistence module makes them)."""
    module = ledger.env.get("PERSISTENCE_MODULE") or "eventsourcing.popo"
    try:
        make_read_model_store = resolve_topic(f"{module}:make_read_model_store")
    except Exception as error:
        raise RuntimeError(f"persistence module {module} serves no read models") from error
    view: ReadModelStore = make_read_model_store(ledger.factory, prefix)
    return view


def open_standby_store(ledger: Ledger, env: dict[str, str], prefix: str) -> ReadModelStore:
    """The read models as a hot standby of the ledger's store replays them (`env` selects
    it: application/store_config.standby_env), for reads only: the primary makes them."""
    module = env["PERSISTENCE_MODULE"]
    try:
        make_standby_store = resolve_topic(f"{module}:make_standby_read_model_store")
    except Exception as error:
        raise RuntimeError(f"persistence module {module} reads no standby") from error
    settings = Environment(ledger.name, {**ledger.env, **env})
    view: ReadModelStore = make_standby_store(settings, prefix)
    return view


class ReadModels:
    def __init__(
        self,
        ledger: Ledger,
        view: ReadModelStore,
        *,
        declared: DomainReadModels = NO_READ_MODELS,
        window: int = 2000,
        fast: bool | None = None,
    ) -> None:
        self.ledger = ledger
        self.store = view
        self.window = window
        # Fold stored events without decoding them whole, where the log allows it.
        self.fast = plain_json(ledger) if fast is None else fast
        # The served domain's read models (its projections, the reads they answer), then
        # the gateway's runs.
        self.declared = declared
        kinds: tuple[type[LedgerProjection], ...] = (*declared.projections, RunsProjection)
        self.projections: dict[str, LedgerProjection] = {p.name: p(view) for p in kinds}
        # Every projection's name, in the order they are caught up.
        self.names: tuple[str, ...] = tuple(self.projections)
        self._topics = {name: frozenset(p.topics) for name, p in self.projections.items()}
        self._all_topics = sorted(frozenset().union(*self._topics.values()))

    def projection(self, name: str) -> LedgerProjection:
        try:
            return self.projections[name]
        except KeyError:
            raise UnknownProjectionError(name, list(self.names)) from None

    def tracking_name(self, projection: str) -> str:
        """Where the store records a projection's position: by the ledger, the view and the
        projection, and the shape of its rows after the first (`LedgerProjection.shape`)."""
        kind = self.projections.get(projection)
        shape = "" if kind is None or kind.shape == 1 else f"@{kind.shape}"
        return f"{self.ledger.name}:{self.store.prefix}{projection}{shape}"

    def position(self, projection: str) -> int:
        return self.store.max_tracking_id(self.tracking_name(projection)) or 0

    def head(self) -> int:
        return self.ledger.recorder.max_notification_id() or 0

    def catch_up(
        self,
        names: list[str] | None = None,
        *,
        to: int | None = None,
        progress: Progress | None = None,
    ) -> list[CatchUp]:
        """Bring projections up to `to` (default: the log's head now).

        All of them, while they stand at one position, go on together: one read of the log
        and one transaction per window for the three (`_catch_up_together`). A projection
        behind or ahead of the others, or a window that fails, goes on alone."""
        target = self.head() if to is None else to
        applied: dict[str, int] = {}
        if names is None and progress is None:
            applied, position = self._catch_up_together(target)
            if position >= target:
                return [CatchUp(name, position, applied[name]) for name in self.names]
        caught_up = [
            self._catch_up(self.projection(n), target, progress) for n in names or self.names
        ]
        return [replace(c, events=c.events + applied.get(c.projection, 0)) for c in caught_up]

    def reset(self, names: list[str] | None = None) -> None:
        for name in names or self.names:
            self.projection(name)
            self.store.reset(name, self.tracking_name(name))

    def take_over(self, name: str, rebuilt: ReadModels) -> int:
        """Swap a rebuilt projection in for this one, atomically; the position taken over."""
        self.projection(name)
        return self.store.take_over(
            name, rebuilt.store.prefix, rebuilt.tracking_name(name), self.tracking_name(name)
        )

    def wait(self, position: int, timeout: float = 5.0) -> None:
        """Block until every projection has reached `position`, catching up if behind."""
        deadline = time.monotonic() + timeout
        names = [self.tracking_name(n) for n in self.names]
        while min(self.store.positions(names).values()) < position:
            self.catch_up(to=position)
            if time.monotonic() > deadline:
                raise TimeoutError(f"the read models did not reach position {position}")

    def _catch_up_together(self, target: int) -> tuple[dict[str, int], int]:
        """Every projection's next window, while all start at one position: one read of the
        log for the three and their rows written in ONE transaction with their tracking
        (the store's `write`). What each applied, and the position they reached together
        (0 if they did not start together); it stops short of `target`, leaving the rest
        to each projection alone, where they part (the first window of an empty read model
        included) or a window fails."""
        projections = [self.projection(name) for name in self.names]
        names = [self.tracking_name(p.name) for p in projections]
        applied = dict.fromkeys(self.names, 0)
        starts = set(self.store.positions(names).values())
        if len(starts) != 1:
            return applied, 0
        position = starts.pop()
        while 0 < position < target:
            upto = min(target, position + self.window)
            notifications = self.ledger.recorder.select_notifications(
                position + 1, self.window, stop=upto, topics=self._all_topics
            )
            shares = [
                [n for n in notifications if n.topic in self._topics[p.name]] for p in projections
            ]
            try:
                with self.store.gathering() as writes:
                    for projection, name, share in zip(projections, names, shares, strict=True):
                        self._process(projection, share, Window(name, position, upto))
                self.store.write(writes)
            except TRANSIENT:
                raise
            except Exception:  # stale, or a window that fails: each alone sees to it
                return applied, 0
            for projection, share in zip(projections, shares, strict=True):
                applied[projection.name] += len(share)
            position = upto
        return applied, position

    def _catch_up(
        self, projection: LedgerProjection, target: int, progress: Progress | None
    ) -> CatchUp:
        name = self.tracking_name(projection.name)
        processed = 0
        position = self.position(projection.name)
        while position < target:
            upto = min(target, position + self.window)
            notifications = self.ledger.recorder.select_notifications(
                position + 1, self.window, stop=upto, topics=projection.topics
            )
            window = Window(name, position, upto)
            try:
                self._process(projection, notifications, window)
            except StaleWindowError:
                position = self.position(projection.name)  # another applier moved it on
                continue
            except TRANSIENT:
                raise
            except Exception:
                if not self._one_at_a_time(projection, notifications, window):
                    position = self.position(projection.name)
                    continue
            position = upto
            processed += len(notifications)
            if progress:
                progress(projection.name, position, target, processed)
        return CatchUp(projection.name, position, processed)

    def _one_at_a_time(
        self, projection: LedgerProjection, notifications: Sequence[Notification], window: Window
    ) -> bool:
        """Apply a failed window event by event, setting aside those that fail; False if
        another applier moved the projection on meanwhile."""
        after = window.after
        try:
            for notification in notifications:
                single = Window(window.name, after, notification.id)
                try:
                    self._process(projection, [notification], single)
                except (StaleWindowError, *TRANSIENT):
                    raise
                except Exception as error:
                    letter = dead_letter(projection.name, notification.id, error)
                    self.store.record_dead_letter(letter, single)
                    log.error(
                        "projection %s set aside the event at position %d: %s",
                        projection.name,
                        notification.id,
                        letter.error,
                    )
                after = notification.id
            if after < window.upto:
                self._process(projection, [], Window(window.name, after, window.upto))
        except StaleWindowError:
            return False
        return True

    def dead_letters(self, projection: str | None = None) -> list[DeadLetter]:
        return self.store.dead_letters(projection)

    def _process(
        self,
        projection: LedgerProjection,
        notifications: Sequence[Notification],
        window: Window,
    ) -> None:
        if self.fast and projection.process_stored(notifications, window):
            return
        events = []
        for notification in notifications:
            event = self.ledger.mapper.to_domain_event(notification)
            assert isinstance(event, AggregateEvent)
            events.append((event, notification.id))
        projection.process_batch(events, window)


def dead_letter(projection: str, position: int, error: Exception) -> DeadLetter:
    """The error as printable text of bounded length: it may quote the very value that failed."""
    text = f"{type(error).__name__}: {error}"
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    if len(shown) > MAX_ERROR:
        shown = shown[: MAX_ERROR - 3] + "..."
    return DeadLetter(projection, position, shown, datetime.now(UTC).isoformat())
