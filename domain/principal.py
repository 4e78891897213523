"""Who may act: principals with a role, and the API keys that name them (stored as hashes)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, get_args
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

# The roles and key scopes, named here once; what each may do is decided in the gateway's
# policy (gateway/core/policy/decisions.py), from the groups in application/permissions.py.
Role = Literal["customer", "teller", "auditor", "admin"]
ROLES: tuple[Role, ...] = get_args(Role)
# Who holds a key: a person (who may confirm what a program would do) or an agent (who may
# only propose). Agents propose, humans confirm.
Scope = Literal["human", "agent"]
SCOPES: tuple[Scope, ...] = get_args(Scope)


def principal_id(name: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"sluice:principal:{name}")


def api_key_id(key_hash: str) -> UUID:
    """A key is found by its hash alone: the id of its record is derived from it."""
    return uuid5(NAMESPACE_URL, f"sluice:api-key:{key_hash}")


class Principal(Aggregate):
    """A person or system acting through the gateway, with one role."""

    class Registered(Aggregate.Created):
        name: str
        role: str
        owns: list[str]

    class OwnershipGranted(Aggregate.Event):
        account: str

    @staticmethod
    def create_id(name: str, role: str, owns: list[str]) -> UUID:
        return principal_id(name)

    @event(Registered)
    def __init__(self, name: str, role: str, owns: list[str]) -> None:
        if role not in ROLES:
            raise ValueError(f"role {role!r} is not one of {', '.join(ROLES)}")
        self.name = name
        self.role = role
        self.owns = list(owns)

    def grant(self, account: str) -> None:
        if account not in self.owns:
            self._granted(account)

    @event(OwnershipGranted)
    def _granted(self, account: str) -> None:
        self.owns.append(account)


class ApiKey(Aggregate):
    """The hash of a key, the principal it names and who holds it; the key is never stored."""

    class Issued(Aggregate.Created):
        key_hash: str
        principal: str
        scope: str
        expires_at: datetime | None

        # Keys issued before scopes existed were all held by people; before expiry, none
        # expired.
        class_version = 3

        @staticmethod
        def upcast_v1_v2(state: dict[str, object]) -> None:
            state["scope"] = "human"

        @staticmethod
        def upcast_v2_v3(state: dict[str, object]) -> None:
            state["expires_at"] = None

    class Revoked(Aggregate.Event):
        pass

    @staticmethod
    def create_id(
        key_hash: str, principal: str, scope: str, expires_at: datetime | None = None
    ) -> UUID:
        return api_key_id(key_hash)

    @event(Issued)
    def __init__(
        self, key_hash: str, principal: str, scope: str, expires_at: datetime | None = None
    ) -> None:
        if scope not in SCOPES:
            raise ValueError(f"scope {scope!r} is not one of {', '.join(SCOPES)}")
        self.key_hash = key_hash
        self.principal = principal
        self.scope = scope
        self.expires_at = expires_at
        self.revoked = False

    @property
    def key_id(self) -> str:
        """The key's public name: the start of its record's id, shown and typed to revoke it
        (the key itself is shown once and never stored)."""
        return self.id.hex[:12]

    def expired(self, now: datetime) -> bool:
        return self.expires_at is not None and now >= self.expires_at

    def revoke(self) -> None:
        if not self.revoked:
            self._revoked()

    @event(Revoked)
    def _revoked(self) -> None:
        self.revoked = True
