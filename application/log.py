"""The event log as plain records, for auditors, exports and the HTTP read side."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any
from uuid import UUID

from eventsourcing.domain import AggregateEvent
from eventsourcing.persistence import Notification

from application.event_json import event_data
from application.ledger import Ledger
from domain.account import account_id


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
        "data": event_data(event),
    }


def follow(
    ledger: Ledger, after: int, stop: threading.Event, poll: float = 0.2
) -> Iterator[dict[str, Any]]:
    """Events after `after`, then each new one as it commits, until `stop` is set.

    Stores that can push (Postgres LISTEN/NOTIFY, in memory) wake the reader; others are
    polled every `poll` seconds.
    """
    try:
        subscription = ledger.recorder.subscribe(gt=after)
    except NotImplementedError:
        yield from _poll(ledger, after, stop, poll)
        return
    names = {account_id(name): name for name in ledger.account_names()}

    def stop_when_asked() -> None:
        stop.wait()
        subscription.stop()

    threading.Thread(target=stop_when_asked, daemon=True).start()
    with subscription:
        for notification in subscription:
            if notification.topic.endswith("Account.Opened"):
                names = {account_id(name): name for name in ledger.account_names()}
            yield record(ledger, notification, names)


def _poll(
    ledger: Ledger, after: int, stop: threading.Event, poll: float
) -> Iterator[dict[str, Any]]:
    while not stop.is_set():
        batch = read_log(ledger, after, 500)
        yield from batch
        if batch:
            after = batch[-1]["position"]
        else:
            stop.wait(poll)
