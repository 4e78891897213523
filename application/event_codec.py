"""Pending events as data, so a preview confirmed in another process commits byte for byte."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.domain import AggregateEvent
from eventsourcing.persistence import StoredEvent

from application.ledger import Ledger


def encode(ledger: Ledger, events: Sequence[AggregateEvent]) -> list[dict[str, Any]]:
    """Each event as the store would record it: id, version, topic and state."""
    encoded = []
    for event in events:
        stored = ledger.mapper.to_stored_event(event)
        encoded.append(
            {
                "originator_id": str(stored.originator_id),
                "originator_version": stored.originator_version,
                "topic": stored.topic,
                "state": base64.b64encode(stored.state).decode(),
            }
        )
    return encoded


def decode(ledger: Ledger, encoded: Sequence[dict[str, Any]]) -> list[AggregateEvent]:
    events = []
    for item in encoded:
        stored = StoredEvent(
            originator_id=UUID(item["originator_id"]),
            originator_version=int(item["originator_version"]),
            topic=str(item["topic"]),
            state=base64.b64decode(item["state"]),
        )
        event = ledger.mapper.to_domain_event(stored)
        assert isinstance(event, AggregateEvent)
        events.append(event)
    return events
