"""What the sandbox is doing, counted for /metrics: programs waiting for a worker, programs
running, and programs run by how they ended (ok, refused or failed, over a limit, busy)."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class SandboxSnapshot:
    waiting: int
    running: int
    ended: dict[str, int]


class SandboxStats:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting = 0
        self._running = 0
        self._ended: Counter[str] = Counter()

    def snapshot(self) -> SandboxSnapshot:
        with self._lock:
            return SandboxSnapshot(self._waiting, self._running, dict(self._ended))

    def run(self) -> SandboxTally:
        """One program from the moment it asks for a worker."""
        with self._lock:
            self._waiting += 1
        return SandboxTally(self)

    def _move(self, waiting: int, running: int, ended: str | None = None) -> None:
        with self._lock:
            self._waiting += waiting
            self._running += running
            if ended is not None:
                self._ended[ended] += 1


class SandboxTally:
    def __init__(self, stats: SandboxStats) -> None:
        self._stats = stats
        self._running = False

    def started(self) -> None:
        """It has a worker."""
        if not self._running:
            self._running = True
            self._stats._move(-1, 1)

    def ended(self, outcome: str) -> None:
        if self._running:
            self._stats._move(0, -1, outcome)
        else:
            self._stats._move(-1, 0, outcome)
