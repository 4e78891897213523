"""Programs running at once, per principal (P6): one principal cannot hold every sandbox worker.

Counted in this process, as its sandbox workers are: with the default of 1 and the default 2
workers, a principal's programs leave at least one worker for everyone else. Several gateway
processes on one store each count their own (and each has its own workers).
"""

from __future__ import annotations

import threading
import time
from collections import Counter


class ProgramsAtOnce:
    """Slots for running programs, `limit` per principal; safe to share between threads."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._running: Counter[str] = Counter()
        self._freed = threading.Condition()

    def take(self, principal: str, *, wait_seconds: float = 0) -> bool:
        """Take one of the principal's slots, waiting up to `wait_seconds` for one to free;
        False if none did (then nothing is taken)."""
        deadline = time.monotonic() + wait_seconds
        with self._freed:
            while self._running[principal] >= self.limit:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._freed.wait(left)
            self._running[principal] += 1
            return True

    def give_back(self, principal: str) -> None:
        with self._freed:
            self._running[principal] -= 1
            if self._running[principal] <= 0:
                del self._running[principal]
            self._freed.notify_all()

    def running(self, principal: str) -> int:
        with self._freed:
            return self._running[principal]
