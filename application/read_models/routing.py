"""Which copy of the read models answers a read: a hot standby's, or the primary's.

With a standby (SLUICE_READ_DATABASE_URL), a read goes to it when a projector keeps the
views current (it writes on the primary; the standby replays what it wrote). A read that
must see a position (a write's `min_position`, or `consistent=true`: the log's head) waits,
within the bounded wait, until the standby has replayed that far, else reads the primary.
The copy chosen for a position is pinned for the rest of the request (a context variable:
each request runs in a context of its own), so its later reads see no less.

A standby that fails a read (it is down, its tables are not replayed yet, a query was
cancelled by its replay) is left aside for STANDBY_BACKOFF_SECONDS: reads go to the
primary meanwhile. Without a standby, every read goes to the primary, as before.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from eventsourcing.persistence import PersistenceError

from application.read_models.service import ReadModels
from application.read_models.store import ReadModelStore

PRIMARY, STANDBY = "primary", "standby"
STANDBY_BACKOFF_SECONDS = 2.0
POLL_SECONDS = 0.02
T = TypeVar("T")
log = logging.getLogger("sluice.read_models")


@runtime_checkable
class ReplayingStore(Protocol):
    """What a standby's read models tell beyond a ReadModelStore."""

    def replay_lag_seconds(self) -> float:
        """How far behind the primary its replay is, in seconds (0 when it has replayed
        all it received, or is a primary itself)."""

    def close(self) -> None: ...


@dataclass(frozen=True)
class StandbyLag:
    events: int  # positions the standby's read models are behind the primary's
    seconds: float  # how far behind its replay of the primary's log is


@dataclass(frozen=True)
class _Pin:
    routing: ReadRouting
    store: ReadModelStore


_pinned: ContextVar[_Pin | None] = ContextVar("read_models_pinned", default=None)


class ReadRouting:
    def __init__(
        self,
        read_models: ReadModels,
        standby: ReadModelStore | None,
        *,
        is_fresh: Callable[[], bool],
        wait_seconds: float,
    ) -> None:
        self.read_models = read_models
        self.primary = read_models.store
        self.standby = standby
        self.is_fresh = is_fresh
        self.wait_seconds = wait_seconds
        # Reads answered by this process, by the server that answered them.
        self.served: Counter[str] = Counter()
        self._names = [read_models.tracking_name(name) for name in read_models.names]
        self._lock = threading.Lock()
        self._down_until = 0.0

    def read(self, op: Callable[[ReadModelStore], T], *, position: int | None = None) -> T:
        """`op` on the copy that answers a read that must see `position` (None: any)."""
        store = self._choose(position)
        if store is not self.primary:
            try:
                return self._served(STANDBY, op(store))
            except PersistenceError as error:
                self._set_aside(error)
        return self._served(PRIMARY, op(self.primary))

    async def aread(self, op: Callable[[ReadModelStore], Awaitable[T]]) -> T:
        """As `read`, for a read on the caller's event loop that must see no position."""
        store = self._choose(None)
        if store is not self.primary:
            try:
                return self._served(STANDBY, await op(store))
            except PersistenceError as error:
                self._set_aside(error)
        return self._served(PRIMARY, await op(self.primary))

    def standby_reaches(self, position: int, deadline: float) -> bool:
        """Wait until the standby's read models hold `position`; False at `deadline`, or
        at once when there is no standby to wait for."""
        if not self._standby_usable():
            return False
        assert self.standby is not None
        while True:
            try:
                if min(self.standby.positions(self._names).values()) >= position:
                    return True
            except PersistenceError as error:
                self._set_aside(error)
                return False
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_SECONDS)

    def pin(self, store: ReadModelStore) -> None:
        """Read from `store` for the rest of this request (it holds what the request saw)."""
        _pinned.set(_Pin(self, store))

    def lag(self) -> StandbyLag | None:
        """How far behind the primary the standby is; None without a standby. Raises the
        store's error when either does not answer."""
        if self.standby is None:
            return None
        primary = min(self.primary.positions(self._names).values())
        replayed = min(self.standby.positions(self._names).values())
        seconds = (
            self.standby.replay_lag_seconds() if isinstance(self.standby, ReplayingStore) else 0
        )
        return StandbyLag(max(primary - replayed, 0), seconds)

    def _choose(self, position: int | None) -> ReadModelStore:
        pinned = _pinned.get()
        if position is None and pinned is not None and pinned.routing is self:
            return pinned.store
        if position is None:
            return self.standby if self._standby_usable() and self.standby else self.primary
        reached = self.standby_reaches(position, time.monotonic() + self.wait_seconds)
        store = self.standby if reached and self.standby else self.primary
        self.pin(store)
        return store

    def _standby_usable(self) -> bool:
        # Without a projector keeping the views current, each read catches them up on the
        # primary first: the standby would not have them yet.
        return self.standby is not None and time.monotonic() >= self._down_until and self.is_fresh()

    def _set_aside(self, error: PersistenceError) -> None:
        with self._lock:
            if time.monotonic() >= self._down_until:
                log.warning(
                    "the standby failed a read (%s); reading the primary for %g s",
                    error,
                    STANDBY_BACKOFF_SECONDS,
                )
            self._down_until = time.monotonic() + STANDBY_BACKOFF_SECONDS

    def _served(self, server: str, value: T) -> T:
        with self._lock:
            self.served[server] += 1
        return value
