"""What an operator asks of the store: how far its log goes, a rebuild of the read models,
the audit's answers, a verification of the books, the log itself.

Held by the facade (`Gateway.operations`); the operators' commands (`sluice replay`,
`sluice audit ...`, `sluice events`, `sluice export`) and the health checks ask it rather
than the ledger. Each answers as the application function it names does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from application import audit
from application.audited import AuditedRecord, NotAuditedError, audited_kind
from application.books import Books, Check
from application.domains import Domain
from application.ledger import Ledger
from application.log import follow, read_log
from application.money_moves import MoneyReader, no_money_moves
from application.read_models.declared import NO_READ_MODELS, DomainReadModels
from application.read_models.replay import Replay
from application.read_models.service import ReadModels
from application.results import RunStory
from application.verify import verify


class Operations:
    """The operator's questions of one ledger, in the served domain's terms."""

    def __init__(
        self,
        ledger: Ledger,
        money_moves: MoneyReader = no_money_moves,
        *,
        domain: str = "",
        audited: Sequence[AuditedRecord] | None = None,
        books: Callable[[], Books] | None = None,
        read_models: DomainReadModels = NO_READ_MODELS,
    ) -> None:
        self._ledger = ledger
        # The served domain's reading of the money a run's events move.
        self._money_moves = money_moves
        # The served domain (`Domain.name`, `.audited`, `.books`): the records the audit
        # follows by key (None: the default domain's) and its check of its books.
        self._domain = domain
        self._audited = audited
        self._books = books
        # The served domain's read models, which a rebuild replays beside the runs.
        self._read_models = read_models

    @classmethod
    def of(cls, ledger: Ledger, domain: Domain) -> Operations:
        """The operator's questions of a ledger that serves `domain`."""
        return cls(
            ledger,
            domain.money_moves,
            domain=domain.name,
            audited=domain.audited,
            books=domain.books,
            read_models=domain.read_models,
        )

    def log_position(self) -> int | None:
        """The position of the log's last event (None or 0: the log is empty); asking it is
        how a check tells that the store answers."""
        return self._ledger.recorder.max_notification_id()

    def rebuild(self) -> Replay:
        """A rebuild of the read models beside the live ones (`Replay.run` does it)."""
        return Replay(self._ledger, self._read_models)

    def verify(
        self, read_models: ReadModels, progress: Callable[[int, int], None] | None = None
    ) -> tuple[int, list[Check]]:
        """The domain's books recomputed from the log and checked against `read_models`,
        and the checks every domain gets."""
        books = None if self._books is None else self._books()
        return verify(self._ledger, read_models, books, progress=progress)

    # The audit's answers.

    def kinds(self) -> list[str]:
        """The kinds of records the audit follows by key, in the domain's order."""
        return [kind.kind for kind in self._audited or ()]

    def timeline(self, kind: str, key: str) -> list[dict[str, Any]]:
        """Every event of one record, each with its run; NotAuditedError for a kind the
        domain does not follow, the kind's DomainError for a key with no record."""
        return audit.timeline(self._ledger, self.audited(kind), key)

    def run_story(self, run_id: UUID) -> RunStory:
        """The whole story of one run."""
        return audit.run_story(self._ledger, run_id, self._money_moves)

    def event_at(self, position: int) -> dict[str, Any] | None:
        """One event of the log with the run behind it; None when there is none there."""
        return audit.event_at(self._ledger, position, self._audited)

    def as_of(
        self, kind: str, key: str, *, position: int | None = None, at: datetime | None = None
    ) -> dict[str, Any]:
        """One record's state at a point of the log (a position, or a time); refused as
        `timeline` is."""
        return audit.as_of(self._ledger, self.audited(kind), key, position=position, at=at)

    def audited(self, kind: str) -> AuditedRecord:
        """The domain's kind of that name; NotAuditedError naming it and the known ones."""
        return audited_kind(self._domain, self._audited or (), kind)

    def first_kind(self) -> str:
        """The kind `audit as-of` reads when not told (the bank's accounts)."""
        kinds = self.kinds()
        if not kinds:
            raise NotAuditedError(self._domain, "record", kinds)
        return kinds[0]

    # The log.

    def read_log(self, after: int, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` events after position `after`, oldest first."""
        return read_log(self._ledger, after, limit, self._audited)

    def follow(self, after: int, stop: threading.Event) -> Iterator[dict[str, Any]]:
        """Events after `after`, then each new one as it commits, until `stop` is set."""
        return follow(self._ledger, after, stop, audited=self._audited)
