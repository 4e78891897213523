"""What a use case needs of its caller, declared on the use case itself.

The gateway enforces it; the use case only states it, so the permission is derived from
the same single definition as the sheet, the stub and the sandbox function.
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
    """The roles that may call a use case; for scoped roles, the arguments they must own."""

    roles: frozenset[Role]
    owned: tuple[str, ...] = ()

    @classmethod
    def of(cls, *roles: Role, owned: tuple[str, ...] = ()) -> Permission:
        return cls(roles=frozenset(roles), owned=owned)


EVERYONE: tuple[Role, ...] = ROLES
STAFF: tuple[Role, ...] = ("teller", "admin")
