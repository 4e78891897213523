"""Who may call a use case, declared on the use case itself.

The gateway enforces it; the use case only states it, so the permission is derived from
the same single definition as the sheet, the stub and the sandbox function. Which
arguments a scoped role must own is marked on the fields (`application.field_rules.Owned`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

Role = Literal["customer", "teller", "auditor", "admin"]
ROLES: tuple[Role, ...] = get_args(Role)
# A role whose reach stops at the accounts its principal owns.
SCOPED_ROLES: frozenset[Role] = frozenset({"customer"})


@dataclass(frozen=True)
class Permission:
    """The roles that may call a use case."""

    roles: frozenset[Role]

    @classmethod
    def of(cls, *roles: Role) -> Permission:
        return cls(roles=frozenset(roles))


EVERYONE: tuple[Role, ...] = ROLES
STAFF: tuple[Role, ...] = ("teller", "admin")
