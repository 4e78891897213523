"""eventsourcing.popo with the read-set guard: PERSISTENCE_MODULE=infrastructure.popo."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eventsourcing import popo
from eventsourcing.persistence import StoredEvent

from application.rate_counter import Clock, MemoryRateCounter
from infrastructure import read_set
from infrastructure.popo_views import POPOReadModelView


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
        self.views: dict[str, POPOReadModelView] = {}
        self.rate_counters: dict[str, MemoryRateCounter] = {}

    def application_recorder(self) -> GuardedPOPOApplicationRecorder:
        return GuardedPOPOApplicationRecorder()

    def process_recorder(self) -> GuardedPOPOProcessRecorder:
        return GuardedPOPOProcessRecorder()


def make_view(factory: Factory, prefix: str) -> POPOReadModelView:
    """The read models of this in-memory store (one set per table prefix)."""
    if prefix not in factory.views:
        factory.views[prefix] = POPOReadModelView(prefix, factory.views)
    return factory.views[prefix]


def make_rate_counter(factory: Factory, name: str, clock: Clock | None = None) -> MemoryRateCounter:
    """The counter of this in-memory store: shared by every gateway on the store."""
    return factory.rate_counters.setdefault(name, MemoryRateCounter(name, clock))
