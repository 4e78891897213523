"""The operator's hold on principals and their API keys: register, issue, list, revoke.

Held by the facade (`Gateway.key_admin`); `sluice principal ...` and `sluice key ...` ask it
rather than the ledger. A refusal is a `PrincipalError` naming what is wrong, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from application import principals
from application.domains import OwnedWords
from application.key_list import KeyRow, list_keys, list_principals, revoke_all, revoke_by_id
from application.ledger import Ledger
from application.principals import PrincipalView
from domain.principal import ApiKey


class KeyAdmin:
    """Principals and keys on one ledger; the key itself is returned once, never kept."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    def register(
        self,
        name: str,
        role: str,
        owns: Iterable[str] = (),
        *,
        scope: str = "human",
        expires_at: datetime | None = None,
        ownable: Callable[[Ledger, str], bool] | None = None,
        words: OwnedWords | None = None,
    ) -> str:
        """A new principal and its first key (returned once); what it owns is checked by the
        domain's `ownable` rule (accounts that exist, when the domain gives none), and named
        in its `words`."""
        return principals.register(
            self._ledger,
            name,
            role,
            owns,
            scope=scope,
            expires_at=expires_at,
            ownable=ownable,
            words=words,
        )

    def issue_key(self, name: str, *, scope: str, expires_at: datetime | None = None) -> str:
        """One more key for an existing principal (returned once)."""
        return principals.issue_key(self._ledger, name, scope=scope, expires_at=expires_at)

    def revoke(self, key: str) -> str:
        """Revoke the key its holder shows; the name of the principal it named."""
        return principals.revoke(self._ledger, key)

    def principals(self) -> list[PrincipalView]:
        """Every principal."""
        return list_principals(self._ledger)

    def keys(self, principal: str | None = None) -> list[KeyRow]:
        """Every key (of one principal, if named) by id, oldest first."""
        return list_keys(self._ledger, principal)

    def revoke_by_id(self, key_id: str) -> ApiKey:
        """Revoke the one key whose id starts with `key_id`."""
        return revoke_by_id(self._ledger, key_id)

    def revoke_all(self, principal: str) -> list[str]:
        """Revoke every key of a principal still in force; the ids revoked now."""
        return revoke_all(self._ledger, principal)
