"""A background thread that keeps the read models close behind the log."""

from __future__ import annotations

import logging
import threading

from application.read_models.service import TRANSIENT, ReadModels

log = logging.getLogger("sluice.projector")


class Projector:
    """Catches every projection up, then waits `interval` seconds when there was nothing new,
    and `gather` seconds when there was: under a steady stream of commits, one round then
    applies the several that came meanwhile instead of one round each (a round's fixed cost,
    four queries, is most of what catching up one operation costs). A read that must see
    a commit catches up itself (`ReadSide.reach`, `consistent`), so it never waits for this.

    Several processes may run one: each window is applied once (see ReadModels).
    """

    def __init__(
        self, read_models: ReadModels, interval: float = 0.1, gather: float = 0.02
    ) -> None:
        self.read_models = read_models
        self.interval = interval
        self.gather = gather
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        if self.running:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="sluice-projector", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._thread = None

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                done = sum(c.events for c in self.read_models.catch_up())
            except TRANSIENT as error:  # the store is away for now: one line, then again
                log.warning("catching up the read models: the store failed (%s); retrying", error)
                done = 0
            except Exception:  # nothing may end the projector
                log.exception("catching up the read models failed; retrying")
                done = 0
            if done == 0:
                self._stop.wait(self.interval)
            elif self.gather:
                self._stop.wait(self.gather)
