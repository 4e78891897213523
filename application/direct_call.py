"""A use case called directly by its principal's own client: run, then commit at once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from application.ledger import Ledger
from application.ports import CallbackPort
from application.unit_of_work import ConflictError, UnitOfWork
from application.use_case import UseCase


@dataclass
class DirectOutcome:
    result: Any = None
    error: str | None = None
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None


def call_now(ledger: Ledger, use_case: UseCase[Any]) -> DirectOutcome:
    """Execute and commit in one transaction; a refusal or conflict commits nothing."""
    uow = UnitOfWork(ledger)
    outcome = DirectOutcome()

    def refused(error: str) -> None:
        outcome.error = f"{use_case.name}: {error}"

    def done(result: Any) -> None:
        outcome.result = result

    use_case.execute(uow, CallbackPort(on_success=done, on_failure=refused))
    if outcome.ok:
        try:
            committed = uow.commit()
        except ConflictError as conflict:
            outcome.error = str(conflict)
            return outcome
        outcome.events = [uow.view(c.event, c.position) for c in committed]
    return outcome
