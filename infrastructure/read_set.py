"""The read-set guard shared by the embedded stores.

A program's commit names the versions of the aggregates it only read; if one of them
moved on before the commit, the commit is refused, so two programs cannot each decide
on a state the other is changing (no lost update, no write skew).
"""

from __future__ import annotations

from collections.abc import Mapping
from uuid import UUID

from eventsourcing.persistence import IntegrityError

ReadVersions = Mapping[UUID, int]


class ReadSetConflictError(IntegrityError):
    """An aggregate the commit only read has changed since it was read."""

    def __init__(self, originator_id: UUID | str, read: int, current: int | None) -> None:
        super().__init__(
            f"aggregate {originator_id} was read at version {read} but is now at version {current}"
        )
        self.originator_id = originator_id
        self.read_version = read
        self.current_version = current


def check(read_versions: ReadVersions | None, current: Mapping[UUID, int | None]) -> None:
    """Raise ReadSetConflictError for the first aggregate whose version moved on (a version
    of 0 reads as absent)."""
    for originator_id, read in (read_versions or {}).items():
        now = current.get(originator_id) or 0
        if now != read:
            raise ReadSetConflictError(originator_id, read, now)
