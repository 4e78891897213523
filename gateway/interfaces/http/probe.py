"""A health check run in a thread of its own, one at a time, awaited with a deadline.

/health must answer within a second whatever the store does: locked, unreachable, or
every worker thread of the server taken by requests that wait on it. So a check never
runs on the event loop nor in the server's thread pool. One thread per check at most:
while a check hangs, later callers wait on that same run instead of starting another.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

S = TypeVar("S")


@dataclass(frozen=True)
class Finding:
    """What a check found: `ok`, a short `detail`, and facts to report beside it."""

    ok: bool
    detail: str
    facts: dict[str, Any] = field(default_factory=dict)


class Probe(Generic[S]):
    def __init__(self, name: str, check: Callable[[S], Finding], deadline: float) -> None:
        self.name = name
        self.check = check
        self.deadline = deadline
        self._lock = threading.Lock()
        self._running: Future[Finding] | None = None

    async def __call__(self, subject: S) -> Finding:
        """The finding of the current run, or a failed one if it takes past the deadline."""
        running = self._start(subject)
        try:
            return await asyncio.wait_for(
                asyncio.shield(asyncio.wrap_future(running)), self.deadline
            )
        except TimeoutError:
            return Finding(False, f"no answer within {self.deadline:g} s")
        except Exception as error:
            return Finding(False, f"{type(error).__name__}: {error}")

    def _start(self, subject: S) -> Future[Finding]:
        with self._lock:
            if self._running is None or self._running.done():
                self._running = Future()
                threading.Thread(
                    target=self._run,
                    args=(self._running, subject),
                    name=f"health-{self.name}",
                    daemon=True,
                ).start()
            return self._running

    def _run(self, running: Future[Finding], subject: S) -> None:
        try:
            running.set_result(self.check(subject))
        except BaseException as error:  # reported as the finding
            running.set_exception(error)
