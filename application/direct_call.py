"""A use case called directly by its principal's own client: run, then commit at once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from application.executor import execute
from application.ledger import Ledger
from application.unit_of_work import ConflictError, UnitOfWork
from application.use_case import UseCase
from domain.errors import DomainError


@dataclass
class DirectOutcome:
    result: Any = None
    error: str | None = None
    # The domain's refusal, with its class, when the use case refused.
    refusal: DomainError | None = None
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None


def call_now(ledger: Ledger, use_case: UseCase[Any]) -> DirectOutcome:
    """Execute and commit in one transaction; a refusal or conflict commits nothing."""
    uow = UnitOfWork(ledger)
    try:
        executed = execute(use_case, uow)
    except DomainError as refusal:
        return DirectOutcome(error=f"{use_case.name}: {refusal}", refusal=refusal)
    try:
        committed = uow.commit()
    except ConflictError as conflict:
        return DirectOutcome(error=str(conflict))
    events = [uow.view(c.event, c.position) for c in committed]
    return DirectOutcome(result=executed.value, events=events)
