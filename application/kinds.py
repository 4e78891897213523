"""What an aggregate kind declares so the unit of work and the ledger keep it as it needs.

A domain's aggregates say it as class attributes; nothing here names a domain. Only `Keyed`
is required of a kind found by a business key; the rest is optional:

- `noun`: how a refused commit names one (`account alice`); by default its class name in
  lower case.
- `listed_by`: the registry aggregate (a `Listing`) that lists the kind's keys. A listing is
  guarded by the registry's version, and every one added registers with it. `key_field`: the
  field of the kind's created event that holds its key, what lists the keys of a log older
  than its registry.
- `takes_turns`: a process's writes to one take turns (application/turns.py).
- `cached`: kept in the ledger's cache (application/aggregate_cache.py) and read through it.
- `snapshotted`: snapshotted every SNAPSHOT_EVERY events (application/ledger.py).
"""

from __future__ import annotations

import sys
from functools import cache
from typing import ClassVar, Protocol, cast
from uuid import UUID

from eventsourcing.domain import Aggregate

from domain.errors import DomainError


class Keyed(Protocol):
    """What an aggregate kind declares to be found by a business key (a sku, an order id)."""

    @staticmethod
    def id_for(key: str) -> UUID: ...

    @staticmethod
    def not_found(key: str) -> DomainError: ...

    @staticmethod
    def already_exists(key: str) -> DomainError: ...


class Listing(Protocol):
    """A registry aggregate: the keys of one kind, in the order they were added, versioned.

    Made with no argument, always under the id `create_id()` gives."""

    # How a refused commit names it: `the set of accounts`.
    subject: ClassVar[str]
    names: list[str]

    @property
    def id(self) -> UUID: ...

    @property
    def version(self) -> int: ...

    @staticmethod
    def create_id() -> UUID: ...

    def register(self, key: str) -> None: ...


@cache
def keyed(kind: type[Aggregate]) -> Keyed:
    """The kind as a `Keyed` one, or a TypeError naming what it lacks."""
    missing = [
        name for name in ("id_for", "not_found", "already_exists") if not hasattr(kind, name)
    ]
    if missing:
        raise TypeError(f"{kind.__name__} is not found by a key: it lacks {', '.join(missing)}")
    return cast(Keyed, kind)


def listing_of(kind: type[Aggregate]) -> type[Aggregate] | None:
    """The registry kind that lists `kind`'s keys, if it declares one."""
    listed_by: type[Aggregate] | None = getattr(kind, "listed_by", None)
    return listed_by


def noun(kind: type) -> str:
    return str(getattr(kind, "noun", kind.__name__.lower()))


def takes_turns(kind: type) -> bool:
    return bool(getattr(kind, "takes_turns", False))


def is_cached(kind: type) -> bool:
    return bool(getattr(kind, "cached", False))


@cache
def is_snapshotted(event_class: type) -> bool:
    """Whether the kind an event class belongs to (the aggregate it is nested in, as its
    topic says: `domain.account:Account.Deposited`) declares itself snapshotted."""
    outer, _, _ = event_class.__qualname__.rpartition(".")
    found: object = sys.modules.get(event_class.__module__)
    for part in outer.split(".") if outer else ():
        found = getattr(found, part, None)
    return outer != "" and isinstance(found, type) and bool(getattr(found, "snapshotted", False))


def key_field(kind: type[Aggregate]) -> str:
    """The field of the kind's created event that holds its key, or a TypeError."""
    field = getattr(kind, "key_field", None)
    if not isinstance(field, str):
        raise TypeError(f"{kind.__name__} does not say which field of its creation is its key")
    return field


def created_classes(kind: type[Aggregate]) -> list[type[Aggregate.Created]]:
    """The kind's own created events that carry its key (an account's Opened)."""
    field = key_field(kind)
    return [
        value
        for value in vars(kind).values()
        if isinstance(value, type)
        and issubclass(value, Aggregate.Created)
        and field in getattr(value, "__dataclass_fields__", {})
    ]
