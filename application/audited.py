"""A kind of record a domain lets the audit follow by its key: an account, an order.

A domain declares its kinds (`Domain.audited`); `sluice audit record KIND ID` shows the
timeline of one record of a kind, `sluice audit as-of` its state at a point of the log, and
the log names each event of such a record by the record's key. Nothing here names a
domain's concepts: what a record's state is, and how it is told, is the kind's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate, AggregateCreated, AggregateEvent
from eventsourcing.utils import get_topic

from application.event_json import plain
from domain.errors import DomainError


def public_state(record: Any) -> dict[str, Any]:
    """A record's own attributes, JSON-ready: what a kind without a `state` of its own shows
    (eventsourcing keeps the id, the version and the times in private attributes)."""
    return {name: _shown(value) for name, value in vars(record).items() if not name.startswith("_")}


def _shown(value: Any) -> Any:
    shown = plain(value)
    if isinstance(shown, list):
        return [_shown(item) for item in shown]
    if isinstance(shown, dict):
        return {name: _shown(item) for name, item in shown.items()}
    if shown is None or isinstance(shown, str | int | float | bool):
        return shown
    return str(shown)  # a value object of the domain: its text


def told_plainly(state: Mapping[str, Any]) -> str:
    """A state in words, field by field: `stock 5, price 3.50`."""
    return _fields(state) or "no state"


def event_and_data(item: Mapping[str, Any]) -> tuple[str, str]:
    """A timeline's row by default: the event's short name and its data, field by field."""
    return item["type"].split(".")[-1], _fields(item["data"])


def _fields(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{name} {_said(value)}" for name, value in values.items())


def _said(value: Any) -> str:
    # A list or a mapping reads as JSON, a text as itself.
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class AuditedRecord:
    """One kind of the domain's records, found by its key.

    `aggregate` is its aggregate class; `key` the field of its creation event that holds
    the key (an account's `account`, a product's `sku`). `id_for` and `not_found` default
    to the aggregate's own (the `Keyed` protocol of application/unit_of_work.py). `state`
    is what the audit shows of one at a point (JSON-ready), `told` that state in words;
    `columns` and `row` what `sluice audit record` prints of each event beside its position
    and its run."""

    kind: str
    aggregate: type[Aggregate]
    key: str
    id_for: Callable[[str], UUID] | None = None
    not_found: Callable[[str], DomainError] | None = None
    state: Callable[[Any], Mapping[str, Any]] = public_state
    told: Callable[[Mapping[str, Any]], str] = told_plainly
    columns: tuple[str, ...] = ("event", "data")
    row: Callable[[Mapping[str, Any]], Sequence[Any]] = field(default=event_and_data)

    def __post_init__(self) -> None:
        for name in ("id_for", "not_found"):
            if getattr(self, name) is None and not hasattr(self.aggregate, name):
                raise TypeError(
                    f"audited {self.kind}: {self.aggregate.__name__} has no {name}; give one"
                )

    def id_of(self, key: str) -> UUID:
        """The aggregate id of the record with this key."""
        found: UUID = self._declared("id_for")(key)
        return found

    def missing(self, key: str) -> DomainError:
        """The refusal naming a key with no record."""
        refusal: DomainError = self._declared("not_found")(key)
        return refusal

    def _declared(self, name: str) -> Callable[[str], Any]:
        """The kind's own `id_for` or `not_found`, else its aggregate's."""
        own: Callable[[str], Any] | None = getattr(self, name)
        return own if own is not None else getattr(self.aggregate, name)

    @cached_property
    def topics(self) -> tuple[str, ...]:
        """The topics of every event of the kind: a record's events are read by them."""
        return tuple(get_topic(kind) for kind in self._events())

    @cached_property
    def created_topics(self) -> frozenset[str]:
        """The topics of the events that create one, which carry its key."""
        return frozenset(get_topic(k) for k in self._events() if issubclass(k, AggregateCreated))

    def _events(self) -> list[type[AggregateEvent]]:
        return [
            value
            for value in vars(self.aggregate).values()
            if isinstance(value, type) and issubclass(value, AggregateEvent)
        ]


class NotAuditedError(LookupError):
    """A kind of record the served domain does not let the audit follow."""

    def __init__(self, domain: str, kind: str, kinds: Sequence[str]) -> None:
        known = ", ".join(kinds) if kinds else "none"
        served = f"domain {domain}" if domain else "the domain"
        super().__init__(f"{served} keeps no {kind} to audit (its kinds: {known})")
        self.kind = kind


def audited_kind(domain: str, audited: Sequence[AuditedRecord], kind: str) -> AuditedRecord:
    """The domain's kind of that name, or a NotAuditedError naming it and the known ones."""
    for record in audited:
        if record.kind == kind:
            return record
    raise NotAuditedError(domain, kind, [record.kind for record in audited])
