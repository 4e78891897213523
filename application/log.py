"""The event log as plain records, for auditors, exports and the HTTP read side.

Each record names the key of the record its event belongs to, under `account` (the bank's
word, kept for every domain), when that record is of a kind the domain lets the audit
follow (`Domain.audited`); other events (runs, principals) are named by none.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any
from uuid import UUID

from eventsourcing.domain import AggregateEvent
from eventsourcing.persistence import Notification

from application import domains
from application.audited import AuditedRecord
from application.event_json import event_data
from application.ledger import Ledger

PAGE = 500


def read_log(
    ledger: Ledger, after: int, limit: int, audited: Sequence[AuditedRecord] | None = None
) -> list[dict[str, Any]]:
    """Up to `limit` events after position `after`, oldest first; `audited`: the served
    domain's kinds of records (by default, those of the default domain)."""
    notifications = ledger.recorder.select_notifications(after + 1, limit)
    names = record_names(ledger, audited)
    return [record(ledger, n, names) for n in notifications]


def record_names(ledger: Ledger, audited: Sequence[AuditedRecord] | None = None) -> dict[UUID, str]:
    """The key of every record of these kinds (by default, the default domain's) the log
    holds, by its aggregate id."""
    topics = {topic: kind for kind in _kinds(audited) for topic in kind.created_topics}
    names: dict[UUID, str] = {}
    if not topics:
        return names
    start = 1
    while True:
        page = ledger.recorder.select_notifications(start, PAGE, topics=list(topics))
        names.update(_named(ledger, notification, topics) for notification in page)
        if len(page) < PAGE:
            return names
        start = page[-1].id + 1


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
    ledger: Ledger,
    after: int,
    stop: threading.Event,
    poll: float = 0.2,
    audited: Sequence[AuditedRecord] | None = None,
) -> Iterator[dict[str, Any]]:
    """Events after `after`, then each new one as it commits, until `stop` is set.

    Stores that can push (Postgres LISTEN/NOTIFY, in memory) wake the reader; others are
    polled every `poll` seconds.
    """
    kinds = _kinds(audited)
    try:
        subscription = ledger.recorder.subscribe(gt=after)
    except NotImplementedError:
        yield from _poll(ledger, after, stop, poll, kinds)
        return
    names = record_names(ledger, kinds)
    created = {topic: kind for kind in kinds for topic in kind.created_topics}

    def stop_when_asked() -> None:
        stop.wait()
        subscription.stop()

    threading.Thread(target=stop_when_asked, daemon=True).start()
    with subscription:
        for notification in subscription:
            if notification.topic in created:
                names.update([_named(ledger, notification, created)])
            yield record(ledger, notification, names)


def _named(
    ledger: Ledger, notification: Notification, kinds: dict[str, AuditedRecord]
) -> tuple[UUID, str]:
    """A record's id and the key its creation event carries."""
    event = ledger.mapper.to_domain_event(notification)
    assert isinstance(event, AggregateEvent)
    return event.originator_id, str(getattr(event, kinds[notification.topic].key))


def _kinds(audited: Sequence[AuditedRecord] | None) -> Sequence[AuditedRecord]:
    return _default_kinds() if audited is None else audited


@cache
def _default_kinds() -> tuple[AuditedRecord, ...]:
    # A caller that does not say which domain it serves reads the log as the default
    # domain's, as Sluice serves it unless told otherwise.
    return domains.load(domains.DEFAULT).audited


def _poll(
    ledger: Ledger,
    after: int,
    stop: threading.Event,
    poll: float,
    audited: Sequence[AuditedRecord],
) -> Iterator[dict[str, Any]]:
    while not stop.is_set():
        batch = read_log(ledger, after, 500, audited)
        yield from batch
        if batch:
            after = batch[-1]["position"]
        else:
            stop.wait(poll)
