"""The port of the per-minute caps: admissions per key, counted where every process sees them.

Each persistence module that serves caps exposes `make_rate_counter(factory, name, clock)`;
the application finds it by the module's name, as it finds `make_read_model_store`. The SQLite and
Postgres counters keep their windows in a table beside the events, so every gateway process
on one store shares one cap, and a restart forgets nothing; the in-memory counter is the
store of a `memory://` ledger, which lives in one process anyway.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable

from eventsourcing.utils import resolve_topic

from application.ledger import Ledger
from application.rate_window import Window

# Seconds since some fixed moment; a store's counter may use its own server's clock instead.
Clock = Callable[[], float]


class RateCounter(ABC):
    """Admissions per key within the last minute, for one named cap."""

    name: str

    @abstractmethod
    def admit(self, key: str, cap: int) -> float | None:
        """Count one admission of `key` if fewer than `cap` were admitted in the last minute
        and answer None; otherwise count nothing and answer the seconds to wait."""

    # True when `async_admit` never blocks its event loop (an in-memory count, or a
    # store's asynchronous driver); otherwise callers on a loop count in a thread.
    admits_async = False

    async def async_admit(self, key: str, cap: int) -> float | None:
        """As `admit`, awaited; blocks the loop unless `admits_async`."""
        return self.admit(key, cap)

    async def async_admit_unless_moved(
        self, key: str, cap: int, ledger: Ledger, position: int
    ) -> tuple[bool, float | None] | None:
        """As `async_admit`, but counted only if the ledger's principals position is still
        `position`, read in the same statement: (False, None) when it has moved (nothing
        counted), else (True, what `admit` answers). None when this counter cannot read
        that position with its count (the caller reads it first, then admits)."""
        return None

    def close(self) -> None:
        """Let go of anything held open (a connection); a closed counter is not used again."""
        return


class MemoryRateCounter(RateCounter):
    """Windows in this process: for a `memory://` store, whose data is in one process too."""

    admits_async = True

    def __init__(self, name: str, clock: Clock | None = None) -> None:
        self.name = name
        self.clock = clock or time.monotonic
        self._windows: dict[str, Window] = {}
        self._lock = threading.Lock()

    def admit(self, key: str, cap: int) -> float | None:
        with self._lock:
            now = self.clock()
            window = self._windows.get(key) or Window.empty(now)
            kept, wait = window.admit(now, cap)
            self._windows[key] = kept
            return wait


def open_rate_counter(ledger: Ledger, name: str, clock: Clock | None = None) -> RateCounter:
    """The counter `name` in the ledger's own store (its persistence module makes it).

    `clock` replaces the store's clock (tests move time with it)."""
    module = ledger.env.get("PERSISTENCE_MODULE") or "eventsourcing.popo"
    try:
        make_rate_counter = resolve_topic(f"{module}:make_rate_counter")
    except Exception as error:
        raise RuntimeError(f"persistence module {module} keeps no rate counters") from error
    counter: RateCounter = make_rate_counter(ledger.factory, name, clock)
    return counter
