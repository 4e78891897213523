"""A run: the whole story of one program or direct call, from proposal to commit.

Its events are appended in the same transaction as the domain events a commit causes,
so every committed event can be traced to the run that produced it (P9).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from eventsourcing.domain import Aggregate, event

from domain.errors import DomainError

PENDING, COMMITTED, FAILED, REJECTED, EXPIRED = (
    "pending",
    "committed",
    "failed",
    "rejected",
    "expired",
)


class ProposalEndedError(DomainError):
    def __init__(self, run_id: UUID, status: str) -> None:
        super().__init__(f"proposal {run_id} is {status}")
        self.status = status


class Run(Aggregate):
    """A program (or a direct call) proposed by a principal, previewed, then decided."""

    class Proposed(Aggregate.Created):
        principal: str
        kind: str
        language: str
        source: str
        request: str | None
        preview: dict[str, Any]
        preview_hash: str
        stored_events: list[dict[str, Any]]
        read_versions: dict[str, int]
        expires_at: datetime
        # Who proposed, beyond the principal's name: the key's scope (agent or human), the
        # interface it came through (http, mcp, cli, console, agent) and the key's id.
        proposed_via: dict[str, str | None] | None

        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, object]) -> None:
            state["proposed_via"] = None

    class Repreviewed(Aggregate.Event):
        preview: dict[str, Any]
        preview_hash: str
        stored_events: list[dict[str, Any]]
        read_versions: dict[str, int]
        expires_at: datetime

    class Confirmed(Aggregate.Event):
        by: str

    class Committed(Aggregate.Event):
        events: list[dict[str, Any]]

    class Failed(Aggregate.Event):
        error: str

    class Rejected(Aggregate.Event):
        by: str

    class Expired(Aggregate.Event):
        pass

    @event(Proposed)
    def __init__(
        self,
        *,
        principal: str,
        kind: str,
        language: str,
        source: str,
        request: str | None,
        preview: dict[str, Any],
        preview_hash: str,
        stored_events: list[dict[str, Any]],
        read_versions: dict[str, int],
        expires_at: datetime,
        proposed_via: dict[str, str | None] | None = None,
    ) -> None:
        self.principal = principal
        self.proposed_via = proposed_via
        self.kind = kind
        self.language = language
        self.source = source
        self.request = request
        self.status = PENDING
        self.error: str | None = None
        self.confirmed_by: str | None = None
        self.confirmed_at: datetime | None = None
        # When it ended: committed, failed, rejected or expired.
        self.decided_at: datetime | None = None
        self.decided_by: str | None = None
        self.committed_events: list[dict[str, Any]] = []
        self._set_preview(
            preview=preview,
            preview_hash=preview_hash,
            stored_events=stored_events,
            read_versions=read_versions,
            expires_at=expires_at,
        )

    def _set_preview(
        self,
        *,
        preview: dict[str, Any],
        preview_hash: str,
        stored_events: list[dict[str, Any]],
        read_versions: dict[str, int],
        expires_at: datetime,
    ) -> None:
        self.preview = preview
        self.preview_hash = preview_hash
        self.stored_events = stored_events
        self.read_versions = read_versions
        self.expires_at = expires_at

    def check_pending(self) -> None:
        if self.status != PENDING:
            raise ProposalEndedError(self.id, self.status)

    def repreview(self, **fresh: Any) -> None:
        """A fresh preview after the store moved on; the proposal waits for its new hash."""
        self.check_pending()
        self._repreviewed(**fresh)

    @event(Repreviewed)
    def _repreviewed(
        self,
        *,
        preview: dict[str, Any],
        preview_hash: str,
        stored_events: list[dict[str, Any]],
        read_versions: dict[str, int],
        expires_at: datetime,
    ) -> None:
        self._set_preview(
            preview=preview,
            preview_hash=preview_hash,
            stored_events=stored_events,
            read_versions=read_versions,
            expires_at=expires_at,
        )

    def confirm(self, by: str) -> None:
        self.check_pending()
        self._confirmed(by)

    # Each handler below takes the event's own `timestamp` (eventsourcing passes the event's
    # attributes a handler names): `modified_on` still holds the previous event's time while
    # a handler runs, and is moved on only after it.
    @event(Confirmed)
    def _confirmed(self, by: str, timestamp: datetime | None = None) -> None:
        self.confirmed_by = by
        self.confirmed_at = timestamp

    def commit(self, events: list[dict[str, Any]]) -> None:
        self._committed(events)

    @event(Committed)
    def _committed(self, events: list[dict[str, Any]], timestamp: datetime | None = None) -> None:
        self.decided_at = timestamp
        self.status = COMMITTED
        self.committed_events = events

    def fail(self, error: str) -> None:
        self.check_pending()
        self._failed(error)

    @event(Failed)
    def _failed(self, error: str, timestamp: datetime | None = None) -> None:
        self.decided_at = timestamp
        self.status = FAILED
        self.error = error

    def reject(self, by: str) -> None:
        self.check_pending()
        self._rejected(by)

    @event(Rejected)
    def _rejected(self, by: str, timestamp: datetime | None = None) -> None:
        self.decided_at = timestamp
        self.status = REJECTED
        self.decided_by = by

    def expire(self) -> None:
        self.check_pending()
        self._expired()

    @event(Expired)
    def _expired(self, timestamp: datetime | None = None) -> None:
        self.decided_at = timestamp
        self.status = EXPIRED
