"""The bank's demo: accounts alice 100.00, bob and carla 0.00, and a principal for each role.

Demo principals get well-known keys (`sk-demo-NAME`) so `--as NAME` works out of the box;
they are for the demo ledger only, never for real money.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import TYPE_CHECKING

from application.domains import Demo, DemoPrincipal, DemoRecord
from domain.account import Account

if TYPE_CHECKING:
    from application.ledger import Ledger

DEMO_ACCOUNTS = (
    ("alice", "Alice", Decimal("100.00")),
    ("bob", "Bob", Decimal("0.00")),
    ("carla", "Carla", Decimal("0.00")),
)

DEMO_PRINCIPALS = (
    DemoPrincipal("admin", "admin"),
    DemoPrincipal("teller", "teller"),
    DemoPrincipal("auditor", "auditor"),
    DemoPrincipal("alice", "customer", ("alice",)),
    DemoPrincipal("bob", "customer", ("bob",)),
    DemoPrincipal("carla", "customer", ("carla",)),
)


def _accounts_opened(ledger: Ledger) -> Iterable[str]:
    return ledger.keys_in_log(Account)


BANK_DEMO = Demo(
    records=tuple(
        DemoRecord(
            account,
            "open_account",
            {"account": account, "owner": owner, "initial_deposit": str(first_deposit)},
        )
        for account, owner, first_deposit in DEMO_ACCOUNTS
    ),
    principals=DEMO_PRINCIPALS,
    present=_accounts_opened,
)
