"""The ledger's aggregate cache: it keeps what is read again and again, nothing else.

eventsourcing's repository puts every aggregate it loads into one LRU cache. A run is
loaded once or twice (confirm, a status read) and holds its whole preview and encoded
events (about 9 KB in memory each), so under a steady load of proposals the cache filled
with runs nobody would read again, until its entry cap: tens of MB held for nothing. The
same goes for Idempotency-Key answers and agent conversations, whose sizes also vary a lot.

Only the kinds named here, and those a domain declares `cached` (application/kinds.py), are
kept. They are small and alike in size (a balance, a role, a key's hash), so the entry cap
bounds the bytes too; every other aggregate is rebuilt from its few events when asked for.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.application import LRUCache

from application.kinds import is_cached


class HotAggregates(LRUCache[UUID, Any]):
    """An LRU cache of at most `maxsize` aggregates, each an instance of one of `kinds` or
    of a kind declared `cached`."""

    def __init__(self, maxsize: int, kinds: tuple[type, ...]) -> None:
        super().__init__(maxsize=maxsize)
        self.kinds = kinds
        self._kept: dict[type, bool] = {}

    def put(self, key: UUID, value: Any) -> Any | None:
        if value is not None and not self._keeps(type(value)):
            return None, None  # nothing cached, nothing evicted
        return super().put(key, value)

    def _keeps(self, kind: type) -> bool:
        kept = self._kept.get(kind)
        if kept is None:
            kept = self._kept[kind] = issubclass(kind, self.kinds) or is_cached(kind)
        return kept

    def clear(self) -> None:
        """Forget every aggregate. (eventsourcing's LRUCache.clear only resets its recency
        list, for its __init__: the entries stayed findable.)"""
        with self.lock:
            super().clear()
            self.cache.clear()
            self.full = False
