"""A unit of work over the accounts (and any domain's aggregates) one request touches.

Use cases read and change in-memory aggregates; reads see the request's own earlier
writes. Nothing reaches the store until `commit`, which appends every event in ONE
`Application.save`, guarded by the versions of the accounts it only read, and by the
version of the set of accounts if it listed them (`AccountRegistry`). Dropping the unit of
work discards everything (cosmicpython's "roll back unless committed").

A domain other than the bank reaches its aggregates by kind and business key (`get`, `add`):
the kind says how a key becomes its id and which refusal names one missing or present
(`Keyed`); their events are collected, guarded and committed as the accounts' are, and
named by their key where an account's would be named by its id.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import Aggregate, AggregateEvent
from eventsourcing.persistence import IntegrityError, Recording

from application.data_policy import DIRECT, CallProvenance
from application.event_json import event_json
from application.ledger import Ledger
from domain.account import Account, account_id
from domain.errors import AccountExistsError, AccountNotFoundError, DomainError
from domain.registry import REGISTRY_ID, AccountRegistry

Found = TypeVar("Found", bound=Aggregate)


class Keyed(Protocol):
    """What an aggregate kind declares to be found by a business key (a sku, an order id)."""

    @staticmethod
    def id_for(key: str) -> UUID: ...

    @staticmethod
    def not_found(key: str) -> DomainError: ...

    @staticmethod
    def already_exists(key: str) -> DomainError: ...


def keyed(kind: type[Aggregate]) -> Keyed:
    """The kind as a `Keyed` one, or a TypeError naming what it lacks."""
    missing = [
        name for name in ("id_for", "not_found", "already_exists") if not hasattr(kind, name)
    ]
    if missing:
        raise TypeError(f"{kind.__name__} is not found by a key: it lacks {', '.join(missing)}")
    return cast(Keyed, kind)


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
        # The accounts a listing may show: a customer's own, or all (None).
        self.visible = visible
        # The owned id an aggregate of the domain belongs to (`OwnedWords.owner_of`): its
        # events are the principal's to see whole when that id is visible.
        self.owner_of = owner_of
        # Accounts as this process last saw them, without asking the store (see
        # `Ledger.load_account`): only for a write whose caller does it again on the stored
        # state when it conflicts, is refused, or changes nothing (see Gateway.call).
        self.as_cached = as_cached
        # Whether it takes its accounts' turns (application/account_turns.py): always as
        # cached, which relies on them; a write's caller may ask for them on stored state too.
        self.takes_turns = turns or as_cached
        self._turns: list[UUID] = []
        self._accounts: dict[str, Account] = {}
        # Any other domain's aggregates, by id (`get`, `add`).
        self._aggregates: dict[UUID, Aggregate] = {}
        self._loaded_versions: dict[UUID, int] = {}
        self._opened_here: list[str] = []
        self._events: list[AggregateEvent] = []
        # Appended with the accounts' events but not theirs to show: the registry's.
        self._bookkeeping: list[AggregateEvent] = []
        self._registry: AccountRegistry | None = None
        self._names: dict[UUID, str] = {}
        self.committed = False
        self.last_position: int | None = None
        # Where the arguments of the use case performing now came from (`execute` sets it).
        self.provenance: CallProvenance = DIRECT

    # Reads and changes, for use cases.

    def account(self, name: str) -> Account:
        """The account as this unit of work sees it, or AccountNotFoundError."""
        return self.accounts(name)[0]

    def accounts(self, *names: str) -> list[Account]:
        """As `account`, for several at once (AccountNotFoundError for the first missing).

        Taking turns, the unit of work first takes the accounts' turns, in id order when it
        holds none yet, or only if they are free (else TurnNotFreeError: do it again
        without them); `close` gives them back."""
        new = [name for name in dict.fromkeys(names) if name not in self._accounts]
        if self.takes_turns and new:
            self._turns += self.ledger.turns.take(
                [account_id(name) for name in new], wait=not self._turns
            )
        for name in new:
            loaded = self.ledger.load_account(name, as_cached=self.as_cached)
            self._remember(name, loaded)
            self._loaded_versions[loaded.id] = loaded.version
        return [self._accounts[name] for name in names]

    def get(self, kind: type[Found], key: str) -> Found:
        """The aggregate of that kind and key as this unit of work sees it, or the kind's
        not-found refusal. Read from the store (no cache); its version guards the commit."""
        found = self._find(kind, key)
        if found is None:
            raise keyed(kind).not_found(key)
        return found

    def has(self, kind: type[Aggregate], key: str) -> bool:
        return self._find(kind, key) is not None

    def add(self, aggregate: Aggregate, key: str) -> None:
        """A new aggregate, committed with the rest; the kind's refusal if the key is taken."""
        kind = keyed(type(aggregate))
        if aggregate.id != kind.id_for(key):
            raise ValueError(f"{type(aggregate).__name__} {key}: its id is not its key's")
        if self.has(type(aggregate), key):
            raise kind.already_exists(key)
        self._aggregates[aggregate.id] = aggregate
        self._names[aggregate.id] = key

    def _find(self, kind: type[Found], key: str) -> Found | None:
        aggregate_id = keyed(kind).id_for(key)
        found = self._aggregates.get(aggregate_id)
        if found is None:
            try:
                found = self.ledger.load(aggregate_id)
            except AggregateNotFoundError:
                return None
            self._aggregates[aggregate_id] = found
            self._names[aggregate_id] = key
            self._loaded_versions[aggregate_id] = found.version
        if not isinstance(found, kind):
            return None
        return found

    def close(self) -> None:
        """Give back the accounts' turns; the work is over, committed or not."""
        turns, self._turns = self._turns, []
        self.ledger.turns.give_back(turns)

    def __enter__(self) -> UnitOfWork:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def exists(self, name: str) -> bool:
        try:
            self.account(name)
        except AccountNotFoundError:
            return False
        return True

    def open(self, account: Account) -> None:
        if self.exists(account.account):
            raise AccountExistsError(account.account)
        self._remember(account.account, account)
        self._opened_here.append(account.account)
        self._registry_to_write().register(account.account)

    def account_names(self) -> list[str]:
        """The accounts as the registry lists them (one cached aggregate, not a scan of the
        log), with the ones opened here; the registry's version guards the commit."""
        if self._registry is not None:
            stored = list(self._registry.names)
        else:
            registry = self.ledger.account_registry()
            if REGISTRY_ID not in self._loaded_versions:
                self._loaded_versions[REGISTRY_ID] = registry.version if registry else 0
            # Only a log with no registry yet has its accounts found by a scan.
            stored = list(registry.names) if registry else self.ledger.account_names()
        names = stored + [name for name in self._opened_here if name not in stored]
        return names if self.visible is None else [n for n in names if n in self.visible]

    def latest_history(self, name: str, limit: int) -> list[AggregateEvent]:
        """The account's last `limit` events, oldest first, as `history` would end."""
        account = self.account(name)
        mine = [e for e in self._events if e.originator_id == account.id]
        pending = [e for e in account.pending_events if isinstance(e, AggregateEvent)]
        ours = mine + pending
        missing = limit - len(ours)
        stored: list[AggregateEvent] = []
        if missing > 0 and name not in self._opened_here:
            upto = self._loaded_versions[account.id]
            stored = self.ledger.latest_account_events(name, upto=upto, limit=missing)
        return (stored + ours)[-limit:]

    def history(self, name: str) -> list[AggregateEvent]:
        """Every event of the account: stored ones, then this unit of work's own."""
        account = self.account(name)
        stored = [] if name in self._opened_here else self.ledger.account_events(name)
        stored = [e for e in stored if e.originator_version <= self._loaded_versions[account.id]]
        mine = [e for e in self._events if e.originator_id == account.id]
        pending = [e for e in account.pending_events if isinstance(e, AggregateEvent)]
        return stored + mine + pending

    # Bookkeeping, for whoever runs the use cases.

    def collect(self) -> list[AggregateEvent]:
        """Move the events raised since the last call into the unit of work, in time order."""
        raised: list[AggregateEvent] = []
        for aggregate in (*self._accounts.values(), *self._aggregates.values()):
            raised.extend(e for e in aggregate.collect_events() if isinstance(e, AggregateEvent))
        raised.sort(key=lambda e: e.timestamp)
        self._events.extend(raised)
        if self._registry is not None:
            self._bookkeeping.extend(
                e for e in self._registry.collect_events() if isinstance(e, AggregateEvent)
            )
        return raised

    @property
    def events(self) -> Sequence[AggregateEvent]:
        """The accounts' (and other aggregates') events: what the work did."""
        return tuple(self._events)

    @property
    def recorded(self) -> Sequence[AggregateEvent]:
        """Everything a commit appends: the accounts' events, then the registry's."""
        return (*self._events, *self._bookkeeping)

    def account_name(self, originator_id: UUID) -> str:
        return self._names[originator_id]

    def event_json(self, event: AggregateEvent, position: int | None = None) -> dict[str, Any]:
        """The event as this work's principal may see it. On an account outside `visible`
        (another customer's, credited by a transfer) the version is not shown: it would
        tell how many movements that account has had. A record the domain says belongs to
        a visible id (`owner_of`: a customer's order) is shown whole."""
        name = self.account_name(event.originator_id)
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
        self.ledger.remember(*(a for a in self._accounts.values() if a.id in written))
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

    def _registry_to_write(self) -> AccountRegistry:
        if self._registry is None:
            self._registry = self.ledger.account_registry() or AccountRegistry()
        return self._registry

    def _remember(self, name: str, account: Account) -> None:
        self._accounts[name] = account
        self._names[account.id] = name

    def _describe_conflict(self, conflict: IntegrityError) -> str:
        moved = getattr(conflict, "originator_id", None)
        names = sorted(self._names.values())
        if moved == REGISTRY_ID:
            subject = "the set of accounts"
        elif isinstance(moved, UUID) and moved in self._aggregates:
            subject = f"{type(self._aggregates[moved]).__name__.lower()} {self._names[moved]}"
        elif isinstance(moved, UUID) and moved in self._names:
            subject = f"account {self._names[moved]}"
        elif self._aggregates:
            subject = "one of " + ", ".join(names)
        else:
            subject = "an account among " + ", ".join(names)
        return f"conflict: {subject} changed since it was read; nothing was written"
