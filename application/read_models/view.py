"""The port of the read models: a tracking recorder that writes each batch of changes and
its tracking position in ONE transaction (exactly once), and answers the read side.

Adapters live in `infrastructure` (SQLite, in memory, Postgres); a persistence module that
serves read models exposes `make_view(factory, prefix)`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Sequence
from decimal import Decimal

from eventsourcing.persistence import Tracking, TrackingRecorder

from application.read_models.rows import (
    BalanceChange,
    BalanceRow,
    RunChange,
    RunLink,
    RunRow,
    StatementRow,
)

PROJECTIONS = ("balances", "statement", "runs")


class ReadModelView(TrackingRecorder, ABC):
    """Tables named with a prefix (`rm_` live, `replay_` for a rebuild beside them)."""

    prefix: str

    @abstractmethod
    def apply_balances(self, changes: Sequence[BalanceChange], tracking: Tracking) -> None: ...

    @abstractmethod
    def apply_statement(
        self, entries: Sequence[StatementRow], links: Sequence[RunLink], tracking: Tracking
    ) -> None: ...

    @abstractmethod
    def apply_runs(self, changes: Sequence[RunChange], tracking: Tracking) -> None: ...

    @abstractmethod
    def balances(self, accounts: Collection[str] | None = None) -> list[BalanceRow]:
        """Rows in account order; all of them, or those named."""

    @abstractmethod
    def statement(self, aggregate_id: str, limit: int) -> list[StatementRow]:
        """Newest first."""

    @abstractmethod
    def statement_entries(self) -> list[StatementRow]:
        """All of them, in log order (for comparisons)."""

    @abstractmethod
    def last_balances(self, aggregate_ids: Collection[str]) -> dict[str, Decimal]:
        """The balance after each account's latest statement entry, by aggregate id."""

    @abstractmethod
    def runs(self, run_ids: Collection[str] | None = None) -> list[RunRow]: ...

    @abstractmethod
    def reset(self, projection: str, tracking_name: str) -> None:
        """Forget a projection's rows and position: it will rebuild from the first event."""
