"""eventsourcing's Repository, with a bound on how long a load queues behind another.

The repository fast-forwards a cached aggregate under a lock of that aggregate, so
concurrent loads of one aggregate (every request of one principal loads its API key) run
one after another. When the store makes each of them wait (a locked table, up to the lock
timeout), the n-th request waited n lock timeouts. Past LOAD_QUEUE_SECONDS a load stops
queueing and fails as the store's own waits do: an OperationalError, a 503 with
Retry-After. A fast-forward normally takes milliseconds, so the bound is only met when the
store is stalled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import suppress
from copy import deepcopy
from threading import Lock
from typing import Any, TypeVar, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Repository
from eventsourcing.persistence import OperationalError

from application.aggregate_cache import HotAggregates

LOAD_QUEUE_SECONDS = 1.0
T = TypeVar("T")


class LoadQueueTimeoutError(OperationalError):
    """Another load of the same aggregate held it longer than LOAD_QUEUE_SECONDS."""


class _BoundedLock:
    """The aggregate's fast-forward lock, whose blocking acquire gives up in time."""

    __slots__ = ("_aggregate_id", "_lock", "_seconds")

    def __init__(self, lock: Lock, aggregate_id: UUID, seconds: float) -> None:
        self._lock = lock
        self._aggregate_id = aggregate_id
        self._seconds = seconds

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if not blocking:
            return self._lock.acquire(blocking=False)
        if self._lock.acquire(timeout=self._seconds if timeout < 0 else timeout):
            return True
        raise LoadQueueTimeoutError(
            f"another request has been loading aggregate {self._aggregate_id} for over "
            f"{self._seconds:g} s; the store is slow to answer"
        )

    def release(self) -> None:
        self._lock.release()


def project_events(aggregate: Any, events: Iterable[Any]) -> Any:
    """eventsourcing's `project_aggregate` without its per-event isinstance check against a
    runtime Protocol, which cost ~80 µs an event (most of a cold load of 100 events): every
    event this application stores is one of its aggregates' events, each with `mutate`."""
    for domain_event in events:
        aggregate = domain_event.mutate(aggregate)
    return aggregate


class BoundedRepository(Repository[UUID]):
    load_queue_seconds = LOAD_QUEUE_SECONDS
    # Moves each time the store's server changes (`forget_all`).
    server_epoch = 0

    def get(
        self,
        aggregate_id: UUID,
        *,
        version: int | None = None,
        projector_func: Any = project_events,
        fastforward_skipping: bool = False,
        deepcopy_from_cache: bool = True,
    ) -> Any:
        epoch = self.server_epoch
        aggregate = super().get(
            aggregate_id,
            version=version,
            projector_func=projector_func,
            fastforward_skipping=fastforward_skipping,
            deepcopy_from_cache=deepcopy_from_cache,
        )
        if epoch != self.server_epoch and self.cache:
            # Read (and cached) while the server changed: perhaps from the one that is gone.
            with suppress(KeyError):
                self.cache.get(aggregate_id, evict=True)
        return aggregate

    def forget_all(self) -> None:
        """Drop every cached aggregate: the store is another server now (a failover), which
        may lack what the last one showed (a commit it had not yet replicated). A write from
        such a copy would be guarded by a version the store never had."""
        self.server_epoch += 1
        if isinstance(self.cache, HotAggregates):
            self.cache.clear()

    def get_from_events(self, aggregate_id: UUID) -> Any:
        """An aggregate replayed from its events alone, in one read of the store: `get` first
        asks the snapshot store, a second read, which only a kind that is snapshotted needs.
        Not cached (the cache keeps only its hot kinds, which `get` loads)."""
        aggregate = project_events(None, self.event_store.get(originator_id=aggregate_id))
        if aggregate is None:
            raise AggregateNotFoundError(f"Aggregate {aggregate_id!r} not found.")
        return aggregate

    def get_as_cached(self, aggregate_id: UUID) -> Any | None:
        """A copy of the cached aggregate as this process last saw it, without asking the
        store whether it moved since; None when it is not cached. Only a write whose commit
        is guarded by the versions it read may act on it: a stale copy then conflicts and
        nothing is written. Copied under the aggregate's fast-forward lock, which a
        fast-forward holds while it changes the cached aggregate in place."""
        if not self.cache:
            return None
        try:
            aggregate = self.cache.get(aggregate_id)
        except KeyError:
            return None
        return self._under_lock(aggregate_id, lambda: deepcopy(aggregate))

    def remember(self, aggregate: Any) -> None:
        """Cache a copy of an aggregate just committed, unless the cache holds it at this
        version or a later one already (another thread's commit, or a fast-forward)."""
        if not self.cache:
            return

        def put() -> None:
            assert self.cache is not None
            try:
                cached = self.cache.get(aggregate.id)
            except KeyError:
                cached = None
            if cached is None or cached.version < aggregate.version:
                self.cache.put(aggregate.id, deepcopy(aggregate))

        self._under_lock(aggregate.id, put)

    def _under_lock(self, aggregate_id: UUID, action: Callable[[], T]) -> T:
        lock = self._use_fastforward_lock(aggregate_id)
        try:
            lock.acquire()
            try:
                return action()
            finally:
                lock.release()
        finally:
            self._disuse_fastforward_lock(aggregate_id)

    def _use_fastforward_lock(self, aggregate_id: UUID) -> Lock:
        lock = super()._use_fastforward_lock(aggregate_id)
        # Duck-typed: the repository only calls acquire() and release() on it.
        return cast(Lock, _BoundedLock(lock, aggregate_id, self.load_queue_seconds))
