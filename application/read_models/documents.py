"""A domain's declared read models: records (JSON objects) by key, kept by folding events.

A domain declares each as `Documents`: its name, the events it folds and the fold. The fold
is told one event at a time, with its log position and a `read` of the records as they
stand (the store's, with the batch's own changes over them), and answers what it changes:
(key, owner, record) to set one, (key, owner, None) to remove one. `owner` is the owned id
the record belongs to (a customer's order: the customer), None for a record every
principal may read. The gateway stores them in the read-model store's documents, in the
same window transactions as every projection, and replays them like any other.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from eventsourcing.domain import AggregateEvent
from eventsourcing.utils import get_topic

from application.read_models.projection import LedgerProjection, Positioned
from application.read_models.rows import DocumentChange, DocumentRow
from application.read_models.store import ReadModelStore, Window

Body = dict[str, Any]
Change = tuple[str, "str | None", "Body | None"]
Read = Callable[[str], "Body | None"]
Fold = Callable[[AggregateEvent, int, Read], Iterable[Change]]


@dataclass(frozen=True)
class Documents:
    """A read model of a domain: `fold` keeps its records from the events of `events`."""

    name: str
    events: tuple[type[AggregateEvent], ...]
    fold: Fold

    def projection(self) -> type[LedgerProjection]:
        """The projection that keeps it (a class, as the read models take them)."""
        declared = self
        topics = tuple(get_topic(kind) for kind in self.events)
        return type(
            f"{self.name.title().replace('_', '')}Documents",
            (DocumentsProjection,),
            {"name": self.name, "topics": topics, "declared": declared},
        )


class DocumentsProjection(LedgerProjection):
    """Folds a batch of events into one write of a declared read model's records."""

    declared: Documents

    def process_batch(self, events: Sequence[Positioned], window: Window) -> None:
        changed: dict[str, tuple[str | None, Body | None]] = {}

        def read(key: str) -> Body | None:
            if key not in changed:
                rows = self.view.documents(self.name, keys=[key])
                changed[key] = (rows[0].owner, json.loads(rows[0].body)) if rows else (None, None)
            return changed[key][1]

        written: dict[str, DocumentChange] = {}
        for event, position in events:
            for key, owner, body in self.declared.fold(event, position, read):
                changed[key] = (owner, body)
                text = None if body is None else json.dumps(body, sort_keys=True, default=str)
                written[key] = DocumentChange(self.name, key, owner, text)
        self.view.apply_documents(list(written.values()), window)

    def rows(self) -> list[Any]:
        return self.view.documents(self.name)


def records(rows: Iterable[DocumentRow]) -> list[Body]:
    """The records of read rows, as the fold wrote them."""
    return [json.loads(row.body) for row in rows]


def record_of(store: ReadModelStore, name: str, key: str) -> Body | None:
    """One record of the read model `name`, or None."""
    rows = store.documents(name, keys=[key])
    return json.loads(rows[0].body) if rows else None
