"""Principals and their keys as an operator lists them, and revoking a key by its id.

A key is shown once and stored as its hash; what is listed is the key's id (the start of
its record's id), its scope, when it was issued, last used and expires. "Last used" is the
last run it proposed or call it made, read from the log: a read through a key writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from eventsourcing.domain import AggregateEvent
from eventsourcing.persistence import Notification
from eventsourcing.utils import get_topic

from application.ledger import Ledger
from application.principals import PrincipalError, PrincipalView, find
from domain.principal import ApiKey, Principal
from domain.run import Run

PAGE = 1000


@dataclass(frozen=True)
class KeyRow:
    key_id: str
    principal: str
    scope: str
    created: datetime
    last_used: datetime | None
    expires_at: datetime | None
    revoked: bool

    def state(self, now: datetime) -> str:
        if self.revoked:
            return "revoked"
        if self.expires_at is not None and now >= self.expires_at:
            return "expired"
        return "active"


def _notifications(ledger: Ledger, topic: str) -> Iterator[Notification]:
    start = 1
    while page := ledger.recorder.select_notifications(start, PAGE, topics=[topic]):
        yield from page
        start = page[-1].id + 1


def _originators(ledger: Ledger, topic: str) -> Iterator[object]:
    for notification in _notifications(ledger, topic):
        yield ledger.repository.get(UUID(str(notification.originator_id)))


def list_principals(ledger: Ledger) -> list[PrincipalView]:
    found = []
    for principal in _originators(ledger, get_topic(Principal.Registered)):
        assert isinstance(principal, Principal)
        view = find(ledger, principal.name)
        assert view is not None
        found.append(view)
    return sorted(found, key=lambda p: p.name)


def _keys(ledger: Ledger) -> list[ApiKey]:
    keys = []
    for key in _originators(ledger, get_topic(ApiKey.Issued)):
        assert isinstance(key, ApiKey)
        keys.append(key)
    return keys


def _last_uses(ledger: Ledger) -> dict[str, datetime]:
    used: dict[str, datetime] = {}
    for notification in _notifications(ledger, get_topic(Run.Proposed)):
        event = ledger.mapper.to_domain_event(notification)
        assert isinstance(event, AggregateEvent)
        via = getattr(event, "proposed_via", None) or {}
        key_id = via.get("key_id")
        if key_id:
            used[key_id] = max(used.get(key_id, event.timestamp), event.timestamp)
    return used


def list_keys(ledger: Ledger, principal: str | None = None) -> list[KeyRow]:
    """Every key (of one principal, if named), oldest first; a PrincipalError for a name
    that names no principal."""
    if principal is not None and find(ledger, principal) is None:
        raise PrincipalError(f"no principal {principal}")
    used = _last_uses(ledger)
    rows = [
        KeyRow(
            key_id=key.key_id,
            principal=key.principal,
            scope=key.scope,
            created=key.created_on,
            last_used=used.get(key.key_id),
            expires_at=key.expires_at,
            revoked=key.revoked,
        )
        for key in _keys(ledger)
        if principal is None or key.principal == principal
    ]
    return sorted(rows, key=lambda row: row.created)


def revoke_by_id(ledger: Ledger, key_id: str) -> ApiKey:
    """Revoke the one key whose id starts with `key_id`; revoking twice changes nothing."""
    wanted = key_id.strip().lower()
    if len(wanted) < 4:
        raise PrincipalError(f"key id {key_id!r}: give at least 4 characters of it")
    found = [key for key in _keys(ledger) if key.key_id.startswith(wanted)]
    if not found:
        raise PrincipalError(f"no key {key_id}: no key's id starts with it")
    if len(found) > 1:
        raise PrincipalError(
            f"key id {key_id!r} is ambiguous: {len(found)} keys' ids start with it"
        )
    (key,) = found
    if not key.revoked:
        key.revoke()
        ledger.save(key)
    return key


def revoke_all(ledger: Ledger, principal: str) -> list[str]:
    """Revoke every key of a principal still in force; the ids of those revoked now."""
    if find(ledger, principal) is None:
        raise PrincipalError(f"no principal {principal}")
    revoked = [key for key in _keys(ledger) if key.principal == principal and not key.revoked]
    for key in revoked:
        key.revoke()
    if revoked:
        ledger.save(*revoked)
    return [key.key_id for key in revoked]
