"""Writes of one process to one aggregate take turns (a kind that declares `takes_turns`,
such as the bank's accounts).

A direct write starts from the aggregate as its process last saw it (see
`UnitOfWork(as_cached=True)`). Two such writes to one aggregate at once would start from the
same version, and the second to commit would conflict and be done again from the store. So a
write holds its aggregates' turns from loading them until its commit is over, and the next one
starts from what the first committed, without asking the store. Other processes are not held:
their writes meet the store's guard, as before.

Turns are taken in the order of the aggregates' ids when a write takes several at once, so two
writes cannot each hold what the other waits for; one taken later, while others are held, is
only tried: if it is not free, the write gives its turns back and is done again without them.
"""

from __future__ import annotations

from threading import Lock
from uuid import UUID

# How long a write waits for its turns before it is done without them.
TURN_SECONDS = 1.0


class TurnNotFreeError(Exception):
    """The aggregate's turn is another write's: this one is done again from the store."""


class Turns:
    """One lock per aggregate while anyone holds or waits for it."""

    def __init__(self, seconds: float = TURN_SECONDS) -> None:
        self.seconds = seconds
        self._lock = Lock()
        self._turns: dict[UUID, tuple[Lock, int]] = {}

    def take(self, ids: list[UUID], *, wait: bool) -> list[UUID]:
        """Take the turns of `ids` (in id order), waiting for them if `wait`, and return the
        ids taken; on TurnNotFreeError none of them is held."""
        taken: list[UUID] = []
        try:
            for aggregate_id in sorted(set(ids)):
                lock = self._use(aggregate_id)
                got = lock.acquire(timeout=self.seconds) if wait else lock.acquire(blocking=False)
                if not got:
                    self._disuse(aggregate_id)
                    raise TurnNotFreeError(str(aggregate_id))
                taken.append(aggregate_id)
        except BaseException:
            self.give_back(taken)
            raise
        return taken

    def give_back(self, ids: list[UUID]) -> None:
        for aggregate_id in ids:
            lock, _ = self._turns[aggregate_id]
            lock.release()
            self._disuse(aggregate_id)

    def _use(self, aggregate_id: UUID) -> Lock:
        with self._lock:
            lock, users = self._turns.get(aggregate_id, (None, 0))
            if lock is None:
                lock = Lock()
            self._turns[aggregate_id] = (lock, users + 1)
            return lock

    def _disuse(self, aggregate_id: UUID) -> None:
        with self._lock:
            lock, users = self._turns[aggregate_id]
            if users == 1:
                del self._turns[aggregate_id]
            else:
                self._turns[aggregate_id] = (lock, users - 1)
