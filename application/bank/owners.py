"""What a bank's customer may own: an account that exists (`Domain.ownable`)."""

from __future__ import annotations

from eventsourcing.application import AggregateNotFoundError

from application.ledger import Ledger
from domain.account import account_id


def account_exists(ledger: Ledger, account: str) -> bool:
    try:
        ledger.repository.get(account_id(account))
    except AggregateNotFoundError:
        return False
    return True
