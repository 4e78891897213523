"""The write side: an eventsourcing Application holding every domain's aggregates.

It names no domain: how it keeps a kind (cached, snapshotted, listed by a registry) is what
the kind declares (application/kinds.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from functools import cached_property
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError, Application, LRUCache, Repository
from eventsourcing.domain import Aggregate, AggregateEvent
from eventsourcing.persistence import Recording
from eventsourcing.utils import get_topic, strtobool

from application.aggregate_cache import HotAggregates
from application.kinds import (
    created_classes,
    is_cached,
    is_snapshotted,
    key_field,
    keyed,
)
from application.repository import BoundedRepository, project_events
from application.turns import Turns
from domain.principal import ApiKey, Principal

Found = TypeVar("Found", bound=Aggregate)
PAGE = 500
# What every request reads: the aggregates it changes (a domain's kinds declared `cached`:
# the bank's accounts, and the registry a listing of them is guarded by, one event per
# account: never replayed whole per request), and the key and principal that authenticate
# it. Runs, Idempotency-Key answers and conversations are read once or twice and are not
# kept (see application/aggregate_cache.py).
HOT_KINDS: tuple[type, ...] = (ApiKey, Principal)
# A kind declared `snapshotted` (an account, the registry of accounts) is snapshotted each
# time its version passes a multiple of this, so a process that has not cached it replays at
# most this many events, however long its history (eventsourcing's snapshots, in their own
# table).
SNAPSHOT_EVERY = 50
# Every event of a principal or of an API key has a topic that starts with this: the store
# keeps an index of them (WATCHED_TOPIC_PREFIX), so the position of the last one is one
# cheap read, which is what a cached authentication is checked against on each request.
PRINCIPALS_TOPIC_PREFIX = f"{Principal.__module__}:"
assert ApiKey.__module__ == Principal.__module__

_log = logging.getLogger(__name__)


@runtime_checkable
class WatchedTopics(Protocol):
    """A recorder that indexes the events whose topics start with WATCHED_TOPIC_PREFIX."""

    def last_watched_position(self, prefix: str) -> int | None: ...


@runtime_checkable
class ServerChanges(Protocol):
    """A recorder that says when its connections reach another server (a failover)."""

    def on_server_change(self, listener: Callable[[], None]) -> None: ...


@runtime_checkable
class AsyncWatchedTopics(Protocol):
    """A recorder that reads the same position on the caller's event loop."""

    async def async_last_watched_position(self, prefix: str) -> int | None: ...


class Ledger(Application[UUID]):
    """Aggregates by id or by kind and key; queries return them only to the unit of work."""

    name = "Ledger"
    # Keep recently used aggregates; each get fast-forwards them with newer stored events,
    # so a long-lived account is not replayed from its first event on every request.
    # At most 10,000 of the HOT_KINDS and cached kinds: about 1 KB each, so about 10 MB.
    env: ClassVar[dict[str, str]] = {
        "AGGREGATE_CACHE_MAXSIZE": "10000",
        "WATCHED_TOPIC_PREFIX": PRINCIPALS_TOPIC_PREFIX,
    }
    is_snapshotting_enabled = True

    def __init__(self, env: dict[str, str] | None = None) -> None:
        # This process's writes to one aggregate take turns (application/turns.py).
        self.turns = Turns()
        super().__init__(env)
        if isinstance(self.recorder, ServerChanges):
            self.recorder.on_server_change(self._bounded.forget_all)

    def construct_repository(self) -> Repository[UUID]:
        # eventsourcing's own, with loads that do not queue behind a stalled one for long.
        cache_maxsize = self.env.get(self.AGGREGATE_CACHE_MAXSIZE)
        repository = BoundedRepository(
            event_store=self.events,
            snapshot_store=self.snapshots,
            cache_maxsize=int(cache_maxsize) if cache_maxsize else None,
            fastforward=strtobool(self.env.get(self.AGGREGATE_CACHE_FASTFORWARD, "y")),
            fastforward_skipping=strtobool(
                self.env.get(self.AGGREGATE_CACHE_FASTFORWARD_SKIPPING, "n")
            ),
            deepcopy_from_cache=strtobool(self.env.get(self.DEEPCOPY_FROM_AGGREGATE_CACHE, "y")),
        )
        if isinstance(repository.cache, LRUCache):
            repository.cache = HotAggregates(repository.cache.maxsize, HOT_KINDS)
        return repository

    def save(self, *objs: Any, **kwargs: Any) -> list[Recording[UUID]]:
        recordings = super().save(*objs, **kwargs)
        self._snapshot_after(recordings)
        return recordings

    def _snapshot_after(self, recordings: list[Recording[UUID]]) -> None:
        """Snapshot each aggregate of a snapshotted kind whose version passed a multiple of
        SNAPSHOT_EVERY. The events are committed already: a snapshot that cannot be written
        (the store went away, another process wrote the same one) is logged and skipped,
        never the save's failure; the next multiple writes one."""
        spans: dict[UUID, tuple[int, int]] = {}
        for recording in recordings:
            event = recording.domain_event
            if not is_snapshotted(type(event)):
                continue
            version = event.originator_version
            low, high = spans.get(event.originator_id, (version, version))
            spans[event.originator_id] = (min(low, version), max(high, version))
        for aggregate_id, (low, high) in spans.items():
            if high // SNAPSHOT_EVERY > (low - 1) // SNAPSHOT_EVERY:
                try:
                    # Replayed as every load is: without the per-event Protocol check.
                    self.take_snapshot(aggregate_id, version=high, projector_func=project_events)
                except Exception as error:  # a snapshot is only a shortcut
                    _log.info(
                        "snapshot of %s at version %d not taken: %s", aggregate_id, high, error
                    )

    def principals_position(self) -> int:
        """The position of the last principal or key event in the log (0 before any): it
        moves whenever a key is issued or revoked or a principal changes, in any process.
        On a store without the index of those topics, the position of the last event of
        any kind (as safe, and moves more often)."""
        watched, _ = self._watched_topics
        if watched is not None:
            return watched.last_watched_position(PRINCIPALS_TOPIC_PREFIX) or 0
        return self.recorder.max_notification_id() or 0

    async def async_principals_position(self) -> int | None:
        """As `principals_position`, read without blocking the caller's event loop; None
        when the store has no such read (the caller then asks in a thread)."""
        _, watched = self._watched_topics
        if watched is None:
            return None
        return await watched.async_last_watched_position(PRINCIPALS_TOPIC_PREFIX) or 0

    @cached_property
    def _watched_topics(self) -> tuple[WatchedTopics | None, AsyncWatchedTopics | None]:
        # Asked once: a check against a runtime Protocol costs ~12 µs, too much per request.
        recorder = self.recorder
        return (
            recorder if isinstance(recorder, WatchedTopics) else None,
            recorder if isinstance(recorder, AsyncWatchedTopics) else None,
        )

    def load_kept(self, aggregate_id: UUID, *, as_cached: bool = False) -> Any:
        """An aggregate of a cached kind, read through the cache (and its snapshots): as
        stored, or, `as_cached`, as this process last saw it if it is cached (see
        BoundedRepository.get_as_cached: only for a guarded write). AggregateNotFoundError
        if there is none."""
        if as_cached:
            cached = self._bounded.get_as_cached(aggregate_id)
            if cached is not None:
                return cached
        return self.repository.get(aggregate_id)

    def find(
        self, kind: type[Found], aggregate_id: UUID, *, as_cached: bool = False
    ) -> Found | None:
        """The aggregate of that kind and id as stored (see `load_kept` for `as_cached`), or
        None: a kind declared `cached` read through the cache, any other from its events."""
        try:
            if is_cached(kind):
                found = self.load_kept(aggregate_id, as_cached=as_cached)
            else:
                found = self.load(aggregate_id)
        except AggregateNotFoundError:
            return None
        return found if isinstance(found, kind) else None

    def load_keyed(self, kind: type[Found], key: str) -> Found:
        """As `find`, or the kind's not-found refusal."""
        found = self.find(kind, keyed(kind).id_for(key))
        if found is None:
            raise keyed(kind).not_found(key)
        return found

    def load(self, aggregate_id: UUID) -> Any:
        """Any domain's aggregate by its id, replayed from its events (not cached: only the
        HOT_KINDS and cached kinds are, and only snapshotted kinds are snapshotted).
        AggregateNotFoundError if there is none."""
        return self._bounded.get_from_events(aggregate_id)

    def load_record(self, aggregate_id: UUID) -> Any:
        """A run, a kept Idempotency-Key answer or a conversation: kinds never snapshotted,
        read from their events in one read of the store instead of two.
        AggregateNotFoundError if there is none."""
        return self._bounded.get_from_events(aggregate_id)

    def remember(self, *committed: Aggregate) -> None:
        """Keep aggregates just committed in the cache, so the next write on them can start
        from them without asking the store (`load_kept(as_cached=True)`)."""
        for aggregate in committed:
            self._bounded.remember(aggregate)

    @property
    def _bounded(self) -> BoundedRepository:
        repository = self.repository
        assert isinstance(repository, BoundedRepository)
        return repository

    def listing(self, registry_kind: type[Found]) -> Found | None:
        """The registry that lists a kind's keys, read through the cache; None before the
        first aggregate of the kind was added with it."""
        try:
            registry: object = self.repository.get(registry_kind.create_id())
        except AggregateNotFoundError:
            return None
        assert isinstance(registry, registry_kind)
        return registry

    def events_of(self, aggregate_id: UUID) -> list[AggregateEvent]:
        return [e for e in self.events.get(aggregate_id) if isinstance(e, AggregateEvent)]

    def latest_events_of(
        self, aggregate_id: UUID, *, upto: int, limit: int
    ) -> list[AggregateEvent]:
        """The aggregate's last `limit` events up to version `upto`, oldest first: read from
        the events' (id, version) index, not the whole history."""
        newest = self.events.get(aggregate_id, lte=upto, desc=True, limit=limit)
        return [e for e in newest if isinstance(e, AggregateEvent)][::-1]

    def keys_in_log(self, kind: type[Aggregate]) -> list[str]:
        """The keys of the kind's created events, in log order (a scan of the log)."""
        field = key_field(kind)
        topics = [get_topic(created) for created in created_classes(kind)]
        return [getattr(event, field) for event in self._created_events(topics)]

    def _created_events(self, topics: list[str]) -> Iterator[object]:
        start = 1
        while True:
            page = self.recorder.select_notifications(start, PAGE, topics=topics)
            for notification in page:
                yield self.mapper.to_domain_event(notification)
            if len(page) < PAGE:
                return
            start = page[-1].id + 1
