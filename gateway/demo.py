"""Seeding a domain's demo data: its records, and its principals with well-known keys.

Demo principals get well-known keys (`sk-demo-NAME`) so `--as NAME` works out of the box,
and agent-scoped ones (`sk-agent-demo-NAME`) for an outside agent that may propose but never
confirm: they are for the demo data only, never for real money. The records are made by
the demo's `admin`, through the domain's own use cases.
"""

from __future__ import annotations

from collections.abc import Callable

from application import domains, principals
from application.domains import Demo, DemoPrincipal
from application.ledger import Ledger
from gateway.core.facade import Gateway

ADMIN = "admin"


def default_demo() -> Demo:
    """The demo of the default domain: what a caller that names none seeds."""
    return domains.load(domains.DEFAULT).demo


def seed(
    gateway: Gateway,
    demo: Demo | None = None,
    *,
    ownable: Callable[[Ledger, str], bool] | None = None,
) -> tuple[list[str], list[str]]:
    """Add what is absent: (records made, principals registered); nothing the second time.

    `ownable` is the domain's rule for what its customers own (`Domain.ownable`)."""
    demo = default_demo() if demo is None else demo
    ledger = gateway.ledger
    registered = []
    if principals.find(ledger, ADMIN) is None:
        principals.register(ledger, ADMIN, "admin", key=principals.demo_key(ADMIN))
        registered.append(ADMIN)
    admin = principals.find(ledger, ADMIN)
    assert admin is not None
    existing = set(demo.present(ledger))
    made = []
    for record in demo.records:
        if record.name not in existing:
            gateway.call(admin, record.use_case, dict(record.arguments))
            made.append(record.name)
    for principal in demo.principals:
        if principals.find(ledger, principal.name) is None:
            principals.register(
                ledger, principal.name, principal.role, principal.owns,
                key=principals.demo_key(principal.name), ownable=ownable,
            )  # fmt: skip
            registered.append(principal.name)
        agent_key = principals.demo_agent_key(principal.name)
        if principals.authenticate(ledger, agent_key) is None:
            principals.issue_key(ledger, principal.name, scope="agent", key=agent_key)
    return made, registered


def demo_principals(demo: Demo | None = None) -> tuple[DemoPrincipal, ...]:
    return (default_demo() if demo is None else demo).principals


def demo_keys(demo: Demo | None = None) -> dict[str, str]:
    return {p.name: principals.demo_key(p.name) for p in demo_principals(demo)}


def demo_agent_keys(demo: Demo | None = None) -> dict[str, str]:
    return {p.name: principals.demo_agent_key(p.name) for p in demo_principals(demo)}


__all__ = ["ADMIN", "default_demo", "demo_agent_keys", "demo_keys", "demo_principals", "seed"]
