"""A use case run and committed at once on a bare ledger, for tests that set up or check
the domain without a gateway (no principal, no run recorded).

Production commits only through the gateway: a direct call (`Gateway.call`) with its run,
or a confirmed proposal (`gateway.core.proposals`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from application.bank.accounts import OpenAccount
from application.bank.demo import DEMO_ACCOUNTS
from application.executor import execute
from application.ledger import Ledger
from application.unit_of_work import ConflictError, UnitOfWork
from application.use_case import UseCase
from domain.account import Account
from domain.errors import DomainError


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
    try:
        executed = execute(use_case, uow)
    except DomainError as refusal:
        return DirectOutcome(error=f"{use_case.name}: {refusal}")
    try:
        committed = uow.commit()
    except ConflictError as conflict:
        return DirectOutcome(error=str(conflict))
    events = [uow.event_json(c.event, c.position) for c in committed]
    return DirectOutcome(result=executed.value, events=events)


def seed_demo(ledger: Ledger) -> list[str]:
    """Open the demo accounts that are absent; the names opened (none the second time)."""
    existing = set(ledger.keys_in_log(Account))
    opened = []
    for account, owner, first_deposit in DEMO_ACCOUNTS:
        if account in existing:
            continue
        outcome = call_now(
            ledger, OpenAccount(account=account, owner=owner, initial_deposit=first_deposit)
        )
        if outcome.ok:
            opened.append(account)
    return opened
