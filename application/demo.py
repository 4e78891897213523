"""The demo ledger: alice with 100.00, bob and carla with nothing."""

from __future__ import annotations

from decimal import Decimal

from application.bank.accounts import OpenAccount
from application.direct_call import call_now
from application.ledger import Ledger

DEMO_ACCOUNTS = (
    ("alice", "Alice", Decimal("100.00")),
    ("bob", "Bob", Decimal("0.00")),
    ("carla", "Carla", Decimal("0.00")),
)


def seed_demo(ledger: Ledger) -> list[str]:
    """Open the demo accounts that are absent; the names opened (none the second time)."""
    existing = set(ledger.account_names())
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
