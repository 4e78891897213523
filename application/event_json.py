"""Domain events as plain JSON-ready dicts, for previews, outcomes and exports."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any
from uuid import UUID

from eventsourcing.domain import AggregateEvent

_ENVELOPE = {"originator_id", "originator_version", "timestamp", "originator_topic"}


def event_json(event: AggregateEvent, account: str, position: int | None = None) -> dict[str, Any]:
    data = {k: plain(v) for k, v in vars(event).items() if k not in _ENVELOPE}
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
