"""The demo: accounts alice 100.00, bob and carla 0.00, and a principal for each role.

Demo principals get well-known keys (`sk-demo-NAME`) so `--as NAME` works out of the box,
and agent-scoped ones (`sk-agent-demo-NAME`) for an outside agent that may propose but never
confirm: they are for the demo ledger only, never for real money.
"""

from __future__ import annotations

from application import principals
from application.demo import DEMO_ACCOUNTS
from gateway.core.facade import Gateway

DEMO_PRINCIPALS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("admin", "admin", ()),
    ("teller", "teller", ()),
    ("auditor", "auditor", ()),
    ("alice", "customer", ("alice",)),
    ("bob", "customer", ("bob",)),
    ("carla", "customer", ("carla",)),
)


def seed(gateway: Gateway) -> tuple[list[str], list[str]]:
    """Add what is absent: (accounts opened, principals registered); nothing the second time."""
    ledger = gateway.ledger
    registered = []
    if principals.find(ledger, "admin") is None:
        principals.register(ledger, "admin", "admin", key=principals.demo_key("admin"))
        registered.append("admin")
    admin = principals.find(ledger, "admin")
    assert admin is not None
    existing = set(ledger.account_names())
    opened = []
    for account, owner, first_deposit in DEMO_ACCOUNTS:
        if account not in existing:
            arguments = {"account": account, "owner": owner, "initial_deposit": str(first_deposit)}
            gateway.call(admin, "open_account", arguments)
            opened.append(account)
    for name, role, owns in DEMO_PRINCIPALS:
        if principals.find(ledger, name) is None:
            principals.register(ledger, name, role, owns, key=principals.demo_key(name))
            registered.append(name)
        agent_key = principals.demo_agent_key(name)
        if principals.authenticate(ledger, agent_key) is None:
            principals.issue_key(ledger, name, scope="agent", key=agent_key)
    return opened, registered


def demo_keys() -> dict[str, str]:
    return {name: principals.demo_key(name) for name, _, _ in DEMO_PRINCIPALS}


def demo_agent_keys() -> dict[str, str]:
    return {name: principals.demo_agent_key(name) for name, _, _ in DEMO_PRINCIPALS}


__all__ = ["DEMO_PRINCIPALS", "demo_agent_keys", "demo_keys", "seed"]
