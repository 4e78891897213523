"""What an operator asks of the store: how far its log goes, a rebuild of the read models,
the audit's answers, a verification of the books, the log itself.

Held by the facade (`Gateway.operations`); the operators' commands (`sluice replay`,
`sluice audit ...`, `sluice events`, `sluice export`) and the health checks ask it rather
than the ledger. Each answers as the application function it names does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any
from uuid import UUID

from application import audit
from application.ledger import Ledger
from application.log import follow, read_log
from application.money_moves import MoneyReader, no_money_moves
from application.read_models.declared import NO_READ_MODELS, DomainReadModels
from application.read_models.replay import Replay
from application.read_models.service import ReadModels
from application.results import RunStory
from application.verify import Check, verify


class Operations:
    """The operator's questions of one ledger."""

    def __init__(
        self,
        ledger: Ledger,
        money_moves: MoneyReader = no_money_moves,
        read_models: DomainReadModels = NO_READ_MODELS,
    ) -> None:
        self._ledger = ledger
        # The served domain's reading of the money a run's events move.
        self._money_moves = money_moves
        # The served domain's read models, which a rebuild replays beside the runs.
        self._read_models = read_models

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
        """Every balance recomputed from the log and checked against `read_models`."""
        return verify(self._ledger, read_models, progress=progress)

    # The audit's answers.

    def account_timeline(self, account: str) -> list[dict[str, Any]]:
        """Every event of an account, each with its run; AccountNotFoundError if none."""
        return audit.account_timeline(self._ledger, account)

    def run_story(self, run_id: UUID) -> RunStory:
        """The whole story of one run."""
        return audit.run_story(self._ledger, run_id, self._money_moves)

    def event_at(self, position: int) -> dict[str, Any] | None:
        """One event of the log with the run behind it; None when there is none there."""
        return audit.event_at(self._ledger, position)

    def as_of(
        self, account: str, *, position: int | None = None, at: datetime | None = None
    ) -> dict[str, Any]:
        """An account's state at a point of the log (a position, or a time)."""
        return audit.as_of(self._ledger, account, position=position, at=at)

    # The log.

    def read_log(self, after: int, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` events after position `after`, oldest first."""
        return read_log(self._ledger, after, limit)

    def follow(self, after: int, stop: threading.Event) -> Iterator[dict[str, Any]]:
        """Events after `after`, then each new one as it commits, until `stop` is set."""
        return follow(self._ledger, after, stop)
