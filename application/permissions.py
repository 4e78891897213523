"""Who may call a use case, declared on the use case itself.

The gateway enforces it; the use case only states it, so the permission is derived from
the same single definition as the sheet, the stub and the sandbox function. Which
arguments a scoped role must own is marked on the fields (`application.field_rules.Owned`).
"""

from __future__ import annotations

from dataclasses import dataclass

from domain.principal import ROLES, SCOPES, Role, Scope

# What the roles and scopes (named in domain/principal.py) stand for; the gateway's policy
# (gateway/core/policy/decisions.py) decides with these groups and nothing else.
# A role whose reach stops at the accounts its principal owns.
SCOPED_ROLES: frozenset[Role] = frozenset({"customer"})
# The roles that read every record: the event log, any run or conversation, /health's details.
AUDITORS: frozenset[Role] = frozenset({"auditor", "admin"})
# The scope of a key whose holder decides (confirms or rejects a proposal, writes directly).
DECIDING_SCOPES: frozenset[Scope] = frozenset({"human"})


@dataclass(frozen=True)
class Permission:
    """The roles that may call a use case."""

    roles: frozenset[Role]

    @classmethod
    def of(cls, *roles: Role) -> Permission:
        return cls(roles=frozenset(roles))


EVERYONE: tuple[Role, ...] = ROLES
STAFF: tuple[Role, ...] = ("teller", "admin")

__all__ = [
    "AUDITORS",
    "DECIDING_SCOPES",
    "EVERYONE",
    "ROLES",
    "SCOPED_ROLES",
    "SCOPES",
    "STAFF",
    "Permission",
    "Role",
    "Scope",
]
