"""Principals and their API keys: keys are shown once and stored only as hashes."""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

from application.ledger import Ledger
from application.permissions import ROLES, SCOPED_ROLES, Role
from domain.account import account_id
from domain.principal import ApiKey, Principal, api_key_id, principal_id

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
DEMO_KEY_PREFIX = "sk-demo-"


class PrincipalError(ValueError):
    """A principal that cannot be registered as asked; nothing was written."""


@dataclass(frozen=True)
class PrincipalView:
    name: str
    role: Role
    owns: frozenset[str]

    @property
    def scoped(self) -> bool:
        """True when the principal reaches only the accounts it owns."""
        return self.role in SCOPED_ROLES


def hash_key(key: str) -> str:
    # Keys are 256 random bits, so a plain digest is as strong as a slow one here.
    return hashlib.sha256(key.encode()).hexdigest()


def new_key() -> str:
    return "sk-" + secrets.token_urlsafe(32)


def demo_key(name: str) -> str:
    """The well-known key of a demo principal: for the demo ledger only, never production."""
    return DEMO_KEY_PREFIX + name


def register(
    ledger: Ledger, name: str, role: str, owns: Iterable[str] = (), *, key: str | None = None
) -> str:
    """Register a principal and issue its key; the key is returned once and never stored."""
    owned = list(dict.fromkeys(owns))
    if not NAME_PATTERN.fullmatch(name):
        raise PrincipalError(
            f"{name!r} is not a principal name (1 to 32 lowercase letters, digits, - or _)"
        )
    if role not in ROLES:
        raise PrincipalError(f"role {role!r} is not one of {', '.join(ROLES)}")
    if owned and role not in SCOPED_ROLES:
        raise PrincipalError(f"a {role} owns no accounts; only a customer does")
    for account in owned:
        try:
            ledger.repository.get(account_id(account))
        except AggregateNotFoundError:
            raise PrincipalError(f"no account {account}") from None
    issued = key or new_key()
    principal = Principal(name=name, role=role, owns=owned)
    api_key = ApiKey(key_hash=hash_key(issued), principal=name)
    try:
        ledger.save(principal, api_key)
    except IntegrityError:
        raise PrincipalError(f"principal {name} already exists") from None
    return issued


def find(ledger: Ledger, name: str) -> PrincipalView | None:
    try:
        principal: object = ledger.repository.get(principal_id(name))
    except AggregateNotFoundError:
        return None
    assert isinstance(principal, Principal)
    role: Role = principal.role  # type: ignore[assignment]
    return PrincipalView(name=principal.name, role=role, owns=frozenset(principal.owns))


def authenticate(ledger: Ledger, key: str) -> PrincipalView | None:
    """The principal a key names, or None for an unknown or revoked key."""
    try:
        api_key: object = ledger.repository.get(api_key_id(hash_key(key)))
    except AggregateNotFoundError:
        return None
    assert isinstance(api_key, ApiKey)
    if api_key.revoked:
        return None
    return find(ledger, api_key.principal)
