"""The demo ledger: alice with 100.00, bob and carla with nothing."""

from __future__ import annotations

from decimal import Decimal

DEMO_ACCOUNTS = (
    ("alice", "Alice", Decimal("100.00")),
    ("bob", "Bob", Decimal("0.00")),
    ("carla", "Carla", Decimal("0.00")),
)
