"""The runs a process proposed that wait for a confirmation, kept for the confirmation that
follows in the same process (`Proposals.confirm`): it then does not read the run again.

Nothing here is authoritative: a run handed out may have been changed by another request
since; the commit is guarded by the run's version, and a stale one conflicts and writes
nothing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from domain.run import Run


class ProposedHere:
    """At most `size` runs, by id, each handed out once; the oldest forgotten first."""

    def __init__(self, size: int = 1000) -> None:
        self.size = size
        self._runs: OrderedDict[str, Run] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, run: Run) -> None:
        with self._lock:
            self._runs[str(run.id)] = run
            while len(self._runs) > self.size:
                self._runs.popitem(last=False)

    def take(self, run_id: str) -> Run | None:
        with self._lock:
            return self._runs.pop(run_id, None)
