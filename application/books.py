"""A domain's own check of its books from the log, as `sluice audit verify` runs it.

The verification reads the log once; a domain's `Books` is handed each event of its
`topics` on the way, then says what it found (`checks`), comparing with the read models
where it keeps some. The checks every domain gets (a run's events contiguous, no event set
aside by a projection) are application/verify.py's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from eventsourcing.domain import AggregateEvent

if TYPE_CHECKING:
    from application.read_models.service import ReadModels


@dataclass
class Check:
    name: str
    ok: bool
    details: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"check": self.name, "ok": self.ok, "details": self.details[:20]}


class Books(Protocol):
    """One verification's reading of a domain's books (a fresh one each time)."""

    @property
    def projection(self) -> str | None:
        """The read model the checks compare with: the log is read up to its position
        (None: up to the log's head)."""
        ...

    @property
    def topics(self) -> frozenset[str]:
        """The topics of the events it reads."""
        ...

    def read(self, event: AggregateEvent, position: int) -> None:
        """One event of its topics, in the log's order."""

    def checks(self, read_models: ReadModels) -> list[Check]:
        """What it found, once the log is read."""
        ...
