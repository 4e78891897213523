"""eventsourcing.popo with the read-set guard: PERSISTENCE_MODULE=infrastructure.popo."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing import popo
from eventsourcing.persistence import StoredEvent

from application.rate_counter import Clock, MemoryRateCounter
from infrastructure import read_set
from infrastructure.popo_read_models import POPOReadModelStore


class _GuardMixin(popo.POPOApplicationRecorder):
    """The read-set check, under the recorder's lock, with the uniqueness check of an insert."""

    def _assert_uniqueness(
        self,
        stored_events: Sequence[StoredEvent],
        *,
        read_versions: read_set.ReadVersions | None = None,
        **kwargs: Any,
    ) -> None:
        super()._assert_uniqueness(stored_events, **kwargs)
        current = {
            originator_id: max(self._stored_events_index.get(str(originator_id), {}), default=None)
            for originator_id in read_versions or {}
        }
        read_set.check(read_versions, current)


class GuardedPOPOApplicationRecorder(_GuardMixin):
    pass


class GuardedPOPOProcessRecorder(_GuardMixin, popo.POPOProcessRecorder):
    pass


# Only one factory class may live in a persistence module's namespace, hence `popo.`.
class Factory(popo.POPOFactory):
    def __init__(self, env: Any) -> None:
        super().__init__(env)
        self.read_model_stores: dict[str, POPOReadModelStore] = {}
        self.rate_counters: dict[str, MemoryRateCounter] = {}

    def application_recorder(self) -> GuardedPOPOApplicationRecorder:
        return GuardedPOPOApplicationRecorder()

    def process_recorder(self) -> GuardedPOPOProcessRecorder:
        return GuardedPOPOProcessRecorder()


def make_read_model_store(factory: Factory, prefix: str) -> POPOReadModelStore:
    """The read models of this in-memory store (one set per table prefix)."""
    if prefix not in factory.read_model_stores:
        factory.read_model_stores[prefix] = POPOReadModelStore(prefix, factory.read_model_stores)
    return factory.read_model_stores[prefix]


def make_rate_counter(factory: Factory, name: str, clock: Clock | None = None) -> MemoryRateCounter:
    """The counter of this in-memory store: shared by every gateway on the store."""
    return factory.rate_counters.setdefault(name, MemoryRateCounter(name, clock))
