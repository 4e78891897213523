"""The event log as plain records, for auditors, exports and the HTTP read side."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.domain import AggregateEvent
from eventsourcing.persistence import Notification

from application.event_view import plain
from application.ledger import Ledger
from domain.account import account_id

_ENVELOPE = {"originator_id", "originator_version", "timestamp", "originator_topic"}


def read_log(ledger: Ledger, after: int, limit: int) -> list[dict[str, Any]]:
    """Up to `limit` events after position `after`, oldest first."""
    notifications = ledger.recorder.select_notifications(after + 1, limit)
    names = {account_id(name): name for name in ledger.account_names()}
    return [record(ledger, n, names) for n in notifications]


def record(ledger: Ledger, notification: Notification, names: dict[UUID, str]) -> dict[str, Any]:
    event = ledger.mapper.to_domain_event(notification)
    assert isinstance(event, AggregateEvent)
    return {
        "position": notification.id,
        "aggregate_id": str(event.originator_id),
        "account": names.get(event.originator_id),
        "version": event.originator_version,
        "type": type(event).__qualname__,
        "timestamp": event.timestamp.isoformat(),
        "data": {k: plain(v) for k, v in vars(event).items() if k not in _ENVELOPE},
    }
