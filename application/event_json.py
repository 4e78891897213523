"""Domain events as plain JSON-ready dicts, for previews, outcomes and exports."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from decimal import Decimal
from functools import cache
from typing import Any
from uuid import UUID

from eventsourcing.domain import AggregateEvent

_ENVELOPE = {"originator_id", "originator_version", "timestamp", "originator_topic"}


def event_data(event: AggregateEvent) -> dict[str, Any]:
    """The event's own fields. One at its default (a memo its side wrote, a payment that is
    no refund) is left out: the event reads as it did before the field was added."""
    defaults = _defaults(type(event))
    return {
        k: plain(v)
        for k, v in vars(event).items()
        if k not in _ENVELOPE and not (k in defaults and defaults[k] == v)
    }


def event_json(event: AggregateEvent, account: str, position: int | None = None) -> dict[str, Any]:
    data = event_data(event)
    return {
        "position": position,
        "account": account,
        "type": type(event).__name__,
        "version": event.originator_version,
        "timestamp": event.timestamp.isoformat(),
        "data": data,
    }


def plain(value: Any) -> Any:
    """JSON-ready: money as two-place text, ids and times as text."""
    if isinstance(value, Decimal):
        return f"{value:f}"
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [plain(v) for v in value]
    return value


@cache
def _defaults(kind: type[Any]) -> dict[str, Any]:
    if not dataclasses.is_dataclass(kind):
        return {}
    return {
        field.name: field.default
        for field in dataclasses.fields(kind)
        if field.default is not dataclasses.MISSING
    }
