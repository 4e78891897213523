"""A unit of work over the aggregates (of any domain) one request touches.

Use cases read and change in-memory aggregates, found by kind and business key (`get`,
`add`): the kind says how a key becomes its id and which refusal names one missing or
present (`Keyed`), and how it is kept (application/kinds.py). Reads see the request's own
earlier writes. Nothing reaches the store until `commit`, which appends every event in ONE
`Application.save`, guarded by the versions of the aggregates it only read, and by the
version of a kind's registry if it listed that kind (`keys`: the bank's accounts are listed
by their registry). Dropping the unit of work discards everything (cosmicpython's "roll back
unless committed").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast
from uuid import UUID

from eventsourcing.domain import Aggregate, AggregateEvent
from eventsourcing.persistence import IntegrityError, Recording

from application.data_policy import DIRECT, CallProvenance
from application.event_json import event_json
from application.kinds import Keyed, Listing, is_cached, keyed, listing_of, noun, takes_turns
from application.ledger import Ledger

__all__ = ["CommittedEvent", "ConflictError", "Keyed", "UnitOfWork", "keyed"]

Found = TypeVar("Found", bound=Aggregate)


class ConflictError(Exception):
    """The store moved on since the unit of work read it; nothing was written."""


@dataclass(frozen=True)
class CommittedEvent:
    event: AggregateEvent
    position: int | None


class UnitOfWork:
    def __init__(
        self,
        ledger: Ledger,
        *,
        visible: frozenset[str] | None = None,
        as_cached: bool = False,
        turns: bool = False,
        owner_of: Callable[[object], str | None] | None = None,
    ) -> None:
        self.ledger = ledger
        # The keys a listing may show (the bank's: a customer's own accounts), or all (None).
        self.visible = visible
        # The owned id an aggregate of the domain belongs to (`OwnedWords.owner_of`): its
        # events are the principal's to see whole when that id is visible.
        self.owner_of = owner_of
        # Aggregates of a cached kind as this process last saw them, without asking the store
        # (see `Ledger.load_kept`): only for a write whose caller does it again on the stored
        # state when it conflicts, is refused, or changes nothing (see Gateway.call).
        self.as_cached = as_cached
        # Whether it takes the turns of what it reads of a kind that takes turns
        # (application/turns.py): always as cached, which relies on them; a write's caller
        # may ask for them on stored state too.
        self.takes_turns = turns or as_cached
        self._turns: list[UUID] = []
        # What it read or added, by id, and the key each was found by.
        self._aggregates: dict[UUID, Aggregate] = {}
        self._names: dict[UUID, str] = {}
        self._loaded_versions: dict[UUID, int] = {}
        # Added here, in order (not in the store: no stored history to read).
        self._added_here: list[UUID] = []
        self._events: list[AggregateEvent] = []
        # Appended with the aggregates' events but not theirs to show: the registries'.
        self._bookkeeping: list[AggregateEvent] = []
        # The registries written here, by their kind; those read or written, by their id.
        self._registries: dict[type[Aggregate], Listing] = {}
        self._listings: dict[UUID, type[Aggregate]] = {}
        self.committed = False
        self.last_position: int | None = None
        # Where the arguments of the use case performing now came from (`execute` sets it).
        self.provenance: CallProvenance = DIRECT

    # Reads and changes, for use cases.

    def get(self, kind: type[Found], key: str) -> Found:
        """The aggregate of that kind and key as this unit of work sees it, or the kind's
        not-found refusal. Its version guards the commit."""
        return self.get_many(kind, key)[0]

    def get_many(self, kind: type[Found], *keys: str) -> list[Found]:
        """As `get`, for several at once (the refusal for the first missing).

        Of a kind that takes turns, taking turns, the unit of work first takes the turns of
        those it has not read yet, in id order when it holds none yet, or only if they are
        free (else TurnNotFreeError: do it again without them); `close` gives them back."""
        self._take_turns(kind, keys)
        found: list[Found] = []
        for key in keys:
            one = self._find(kind, key)
            if one is None:
                raise keyed(kind).not_found(key)
            found.append(one)
        return found

    def has(self, kind: type[Aggregate], key: str) -> bool:
        self._take_turns(kind, (key,))
        return self._find(kind, key) is not None

    def add(self, aggregate: Aggregate, key: str) -> None:
        """A new aggregate, committed with the rest; the kind's refusal if the key is taken.
        Of a listed kind, it is registered with the kind's registry."""
        kind = keyed(type(aggregate))
        if aggregate.id != kind.id_for(key):
            raise ValueError(f"{type(aggregate).__name__} {key}: its id is not its key's")
        if self.has(type(aggregate), key):
            raise kind.already_exists(key)
        self._aggregates[aggregate.id] = aggregate
        self._names[aggregate.id] = key
        self._added_here.append(aggregate.id)
        registry_kind = listing_of(type(aggregate))
        if registry_kind is not None:
            self._registry_to_write(registry_kind).register(key)

    def keys(self, kind: type[Aggregate]) -> list[str]:
        """The keys of a listed kind as its registry lists them (one cached aggregate, not
        a scan of the log), with the ones added here; the registry's version guards the
        commit. Only the `visible` ones."""
        registry_kind = listing_of(kind)
        if registry_kind is None:
            raise TypeError(f"{kind.__name__} is not listed: it declares no listed_by")
        written = self._registries.get(registry_kind)
        if written is not None:
            stored = list(written.names)
        else:
            registry = cast(Listing | None, self.ledger.listing(registry_kind))
            registry_id = registry_kind.create_id()
            self._listings[registry_id] = registry_kind
            if registry_id not in self._loaded_versions:
                self._loaded_versions[registry_id] = registry.version if registry else 0
            # Only a log with no registry yet has its keys found by a scan.
            stored = list(registry.names) if registry else self.ledger.keys_in_log(kind)
        added = [self._names[i] for i in self._added_here if isinstance(self._aggregates[i], kind)]
        names = stored + [name for name in added if name not in stored]
        return names if self.visible is None else [n for n in names if n in self.visible]

    def latest_history(self, kind: type[Aggregate], key: str, limit: int) -> list[AggregateEvent]:
        """The aggregate's last `limit` events, oldest first, as `history` would end."""
        aggregate = self.get(kind, key)
        mine = [e for e in self._events if e.originator_id == aggregate.id]
        pending = [e for e in aggregate.pending_events if isinstance(e, AggregateEvent)]
        ours = mine + pending
        missing = limit - len(ours)
        stored: list[AggregateEvent] = []
        if missing > 0 and aggregate.id not in self._added_here:
            upto = self._loaded_versions[aggregate.id]
            stored = self.ledger.latest_events_of(aggregate.id, upto=upto, limit=missing)
        return (stored + ours)[-limit:]

    def history(self, kind: type[Aggregate], key: str) -> list[AggregateEvent]:
        """Every event of the aggregate: stored ones, then this unit of work's own."""
        aggregate = self.get(kind, key)
        added = aggregate.id in self._added_here
        stored = [] if added else self.ledger.events_of(aggregate.id)
        upto = self._loaded_versions.get(aggregate.id, 0)
        stored = [e for e in stored if e.originator_version <= upto]
        mine = [e for e in self._events if e.originator_id == aggregate.id]
        pending = [e for e in aggregate.pending_events if isinstance(e, AggregateEvent)]
        return stored + mine + pending

    def _take_turns(self, kind: type[Aggregate], keys: Sequence[str]) -> None:
        if not self.takes_turns or not takes_turns(kind):
            return
        ids = [keyed(kind).id_for(key) for key in dict.fromkeys(keys)]
        new = [i for i in ids if i not in self._aggregates]
        if new:
            self._turns += self.ledger.turns.take(new, wait=not self._turns)

    def _find(self, kind: type[Found], key: str) -> Found | None:
        aggregate_id = keyed(kind).id_for(key)
        found = self._aggregates.get(aggregate_id)
        if found is None:
            found = self.ledger.find(kind, aggregate_id, as_cached=self.as_cached)
            if found is None:
                return None
            self._aggregates[aggregate_id] = found
            self._names[aggregate_id] = key
            self._loaded_versions[aggregate_id] = found.version
        if not isinstance(found, kind):
            return None
        return found

    def close(self) -> None:
        """Give back the turns it took; the work is over, committed or not."""
        turns, self._turns = self._turns, []
        self.ledger.turns.give_back(turns)

    def __enter__(self) -> UnitOfWork:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # Bookkeeping, for whoever runs the use cases.

    def collect(self) -> list[AggregateEvent]:
        """Move the events raised since the last call into the unit of work, in time order."""
        raised: list[AggregateEvent] = []
        for aggregate in self._aggregates.values():
            raised.extend(e for e in aggregate.collect_events() if isinstance(e, AggregateEvent))
        raised.sort(key=lambda e: e.timestamp)
        self._events.extend(raised)
        for registry in self._registries.values():
            self._bookkeeping.extend(
                e
                for e in cast(Aggregate, registry).collect_events()
                if isinstance(e, AggregateEvent)
            )
        return raised

    @property
    def events(self) -> Sequence[AggregateEvent]:
        """The aggregates' events: what the work did."""
        return tuple(self._events)

    @property
    def recorded(self) -> Sequence[AggregateEvent]:
        """Everything a commit appends: the aggregates' events, then the registries'."""
        return (*self._events, *self._bookkeeping)

    def key_of(self, originator_id: UUID) -> str:
        """The key the aggregate of that id was found or added by."""
        return self._names[originator_id]

    def event_json(self, event: AggregateEvent, position: int | None = None) -> dict[str, Any]:
        """The event as this work's principal may see it. On an aggregate outside `visible`
        (another customer's account, credited by a transfer) the version is not shown: it
        would tell how many movements that account has had. A record the domain says belongs
        to a visible id (`owner_of`: a customer's order) is shown whole."""
        name = self.key_of(event.originator_id)
        shown = event_json(event, name, position)
        if self.visible is not None and not self._seen_whole(event.originator_id, name):
            shown["version"] = None
        return shown

    def _seen_whole(self, originator_id: UUID, name: str) -> bool:
        assert self.visible is not None
        if name in self.visible:
            return True
        aggregate = self._aggregates.get(originator_id)
        if self.owner_of is None or aggregate is None:
            return False
        return self.owner_of(aggregate) in self.visible

    def read_versions(self) -> dict[UUID, int]:
        """Versions of what was read but not written (0: read as absent): the commit's guard."""
        written = {e.originator_id for e in self.recorded}
        return {i: v for i, v in self._loaded_versions.items() if i not in written}

    def commit(self, *also: Aggregate) -> list[CommittedEvent]:
        """Append every collected event, then the pending events of `also` (an audit record),
        in one transaction, or raise ConflictError."""
        self.collect()
        if self.committed:
            raise RuntimeError("this unit of work has already committed")
        if not self._events and not also:
            self.committed = True
            return []
        try:
            recordings: list[Recording[UUID]] = self.ledger.save(
                *self.recorded, *also, read_versions=self.read_versions()
            )
        except IntegrityError as conflict:
            raise ConflictError(self._describe_conflict(conflict)) from None
        self.committed = True
        written = {e.originator_id for e in self._events}
        self.ledger.remember(
            *(a for a in self._aggregates.values() if a.id in written and is_cached(type(a)))
        )
        # The log position of the transaction's last event: what a reader waits for.
        self.last_position = max(r.notification.id for r in recordings)
        positions = {
            (r.domain_event.originator_id, r.domain_event.originator_version): r.notification.id
            for r in recordings
        }
        return [
            CommittedEvent(e, positions.get((e.originator_id, e.originator_version)))
            for e in self._events
        ]

    def _registry_to_write(self, registry_kind: type[Aggregate]) -> Listing:
        registry = self._registries.get(registry_kind)
        if registry is None:
            registry = cast(Listing, self.ledger.listing(registry_kind) or registry_kind())
            self._registries[registry_kind] = registry
            self._listings[registry.id] = registry_kind
        return registry

    def _describe_conflict(self, conflict: IntegrityError) -> str:
        moved = getattr(conflict, "originator_id", None)
        names = sorted(self._names.values())
        kinds = {type(a) for a in self._aggregates.values()}
        if moved in self._listings:
            subject = str(getattr(self._listings[moved], "subject", "a listing"))
        elif isinstance(moved, UUID) and moved in self._aggregates:
            subject = f"{noun(type(self._aggregates[moved]))} {self._names[moved]}"
        elif len(kinds) == 1 and hasattr(only := kinds.pop(), "noun"):
            article = "an" if noun(only)[:1] in "aeiou" else "a"
            subject = f"{article} {noun(only)} among " + ", ".join(names)
        else:
            subject = "one of " + ", ".join(names)
        return f"conflict: {subject} changed since it was read; nothing was written"
