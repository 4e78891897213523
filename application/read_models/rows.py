"""The rows of the read models, and the changes a batch of events makes to them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HistoryEntry:
    """An entry of a history: what one event of a stream (an aggregate) did, as a JSON
    object's text, at its version in the stream and its position in the log; `run_id` is
    the run that committed the event, once a `RunLink` says so."""

    projection: str
    stream: str
    version: int
    position: int
    body: str
    run_id: str | None = None


@dataclass(frozen=True)
class RunLink:
    """A committed event (its stream and version in a projection's history), and the run
    that committed it."""

    projection: str
    stream: str
    version: int
    run_id: str


@dataclass
class RunChange:
    """Merged into the row of `run_id`; None leaves a column as it is."""

    run_id: str
    principal: str | None = None
    kind: str | None = None
    language: str | None = None
    status: str | None = None
    calls: int | None = None
    previewed: int | None = None
    committed: int | None = None
    confirmed_by: str | None = None
    error: str | None = None
    created_at: str | None = None
    decided_at: str | None = None
    position: int | None = None


@dataclass(frozen=True)
class RunRow:
    run_id: str
    principal: str
    kind: str
    language: str
    status: str
    calls: int
    previewed: int
    committed: int
    confirmed_by: str | None
    error: str | None
    created_at: str
    decided_at: str | None
    position: int


@dataclass(frozen=True)
class DocumentChange:
    """A record of a domain's declared read model (`application.read_models.documents`) set
    to `body` (a JSON object's text), or removed (None), by its key in that read model;
    `owner` is the owned id it belongs to (None: every principal's to read)."""

    projection: str
    key: str
    owner: str | None
    body: str | None


@dataclass(frozen=True)
class DocumentRow:
    projection: str
    key: str
    owner: str | None
    body: str


@dataclass(frozen=True)
class DeadLetter:
    """An event a projection could not apply: kept aside, so the projection goes on."""

    projection: str
    position: int
    error: str
    recorded_at: str
