"""Principals and their API keys: keys are shown once and stored only as hashes."""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

from application.domains import OwnedWords
from application.ledger import Ledger
from application.permissions import DECIDING_SCOPES, ROLES, SCOPED_ROLES, SCOPES, Role, Scope
from domain.principal import ApiKey, Principal, api_key_id, principal_id

# One form for every name a person types: a principal's, and an id it owns (the bank's
# account ids have the same form).
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
# What a principal's name may be, in words: its error messages say it.
NAME_RULE = "1 to 32 lowercase letters, digits, - or _"
DEMO_KEY_PREFIX = "sk-demo-"
DEMO_AGENT_KEY_PREFIX = "sk-agent-demo-"


class PrincipalError(ValueError):
    """A principal that cannot be registered as asked; nothing was written."""


@dataclass(frozen=True)
class PrincipalView:
    name: str
    role: Role
    owns: frozenset[str]
    # The scope of the key that authenticated this principal; an operator at the terminal
    # who names a principal (`find`) is a person.
    scope: Scope = "human"
    # The key's id (None for a principal named at the terminal) and the interface it came
    # through (http, mcp, cli, console, agent): each interface says so as it authenticates.
    key_id: str | None = None
    interface: str | None = None

    def via(self) -> dict[str, str | None]:
        """What a proposal records of who proposed it, beyond the name."""
        return {"scope": self.scope, "interface": self.interface, "key_id": self.key_id}

    # Two facts about the holder, from the groups in application/permissions.py; the
    # gateway's policy (gateway/core/policy/decisions.py) is what decides with them.

    @property
    def decides(self) -> bool:
        """True when the key is a person's, who may confirm or reject a proposal, or commit
        without one."""
        return self.scope in DECIDING_SCOPES

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


def demo_agent_key(name: str) -> str:
    """The well-known agent-scoped key of a demo principal: it may propose, never confirm."""
    return DEMO_AGENT_KEY_PREFIX + name


def register(
    ledger: Ledger,
    name: str,
    role: str,
    owns: Iterable[str] = (),
    *,
    scope: str = "human",
    key: str | None = None,
    expires_at: datetime | None = None,
    ownable: Callable[[Ledger, str], bool] | None = None,
    words: OwnedWords | None = None,
) -> str:
    """Register a principal and issue its key; the key is returned once and never stored.

    What it owns must be ids of the form of a name that the domain's `ownable` rule
    accepts (any such id without one); `words` name them as the domain does, and its
    refusal (accounts when it gives none)."""
    owned = list(dict.fromkeys(owns))
    _check_scope(scope)
    _check_expiry(expires_at)
    if not NAME_PATTERN.fullmatch(name):
        raise PrincipalError(f"{_quoted(name)} is not a principal name ({NAME_RULE})")
    if role not in ROLES:
        raise PrincipalError(f"role {role!r} is not one of {', '.join(ROLES)}")
    if owned and role not in SCOPED_ROLES:
        owned_things = "accounts" if words is None else words.many
        raise PrincipalError(f"a {role} owns no {owned_things}; only a customer does")
    said = OwnedWords() if words is None else words
    for owned_id in owned:
        if not (isinstance(owned_id, str) and NAME_PATTERN.fullmatch(owned_id)):
            raise PrincipalError(f"owns: {_quoted(owned_id)} is not {said.an_id} ({NAME_RULE})")
        if ownable is not None and not ownable(ledger, owned_id):
            raise PrincipalError(said.unowned.format(id=owned_id))
    issued = key or new_key()
    principal = Principal(name=name, role=role, owns=owned)
    api_key = ApiKey(key_hash=hash_key(issued), principal=name, scope=scope, expires_at=expires_at)
    try:
        ledger.save(principal, api_key)
    except IntegrityError:
        raise PrincipalError(f"principal {name} already exists") from None
    return issued


def issue_key(
    ledger: Ledger,
    name: str,
    *,
    scope: str,
    key: str | None = None,
    expires_at: datetime | None = None,
) -> str:
    """Issue one more key for an existing principal, e.g. an agent key for a person."""
    _check_scope(scope)
    _check_expiry(expires_at)
    if find(ledger, name) is None:
        raise PrincipalError(f"no principal {name}")
    issued = key or new_key()
    api_key = ApiKey(key_hash=hash_key(issued), principal=name, scope=scope, expires_at=expires_at)
    try:
        ledger.save(api_key)
    except IntegrityError:
        raise PrincipalError("this key is already issued") from None
    return issued


def revoke(ledger: Ledger, key: str) -> str:
    """Revoke a key at once (its holder shows it, since only its hash is stored); returns
    the principal it named. Revoking twice changes nothing more."""
    try:
        api_key: object = ledger.repository.get(api_key_id(hash_key(key)))
    except AggregateNotFoundError:
        raise PrincipalError("no such key: it was never issued here") from None
    assert isinstance(api_key, ApiKey)
    if not api_key.revoked:
        api_key.revoke()
        ledger.save(api_key)
    return api_key.principal


def _quoted(text: str) -> str:
    shown = repr(text)
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _check_expiry(expires_at: datetime | None) -> None:
    if expires_at is None:
        return
    if expires_at.tzinfo is None:
        raise PrincipalError(f"expiry {expires_at.isoformat()}: give its time zone")
    if expires_at <= datetime.now(UTC):
        raise PrincipalError(f"expiry {expires_at.isoformat()} is not in the future")


def _check_scope(scope: str) -> None:
    if scope not in SCOPES:
        raise PrincipalError(
            f"scope {scope!r} is not one of {', '.join(SCOPES)} "
            "(a person confirms; an agent only proposes)"
        )


def find(ledger: Ledger, name: str) -> PrincipalView | None:
    try:
        principal: object = ledger.repository.get(principal_id(name))
    except AggregateNotFoundError:
        return None
    assert isinstance(principal, Principal)
    return PrincipalView(name=principal.name, role=principal.role, owns=frozenset(principal.owns))


def _api_key(ledger: Ledger, key: str) -> ApiKey | None:
    try:
        api_key: object = ledger.repository.get(api_key_id(hash_key(key)))
    except AggregateNotFoundError:
        return None
    assert isinstance(api_key, ApiKey)
    return api_key


def authenticate(ledger: Ledger, key: str, now: datetime | None = None) -> PrincipalView | None:
    """The principal a key names, or None for an unknown, revoked or expired key."""
    loaded = authenticated_key(ledger, key, now or datetime.now(UTC))
    return None if loaded is None else loaded[0]


def authenticated_key(
    ledger: Ledger, key: str, now: datetime
) -> tuple[PrincipalView, datetime | None] | None:
    """As `authenticate`, with the key's expiry (None: it does not expire)."""
    api_key = _api_key(ledger, key)
    if api_key is None or api_key.revoked or api_key.expired(now):
        return None
    principal = find(ledger, api_key.principal)
    if principal is None:
        return None
    scope: Scope = "agent" if api_key.scope == "agent" else "human"
    return replace(principal, scope=scope, key_id=api_key.key_id), api_key.expires_at


def refusal(ledger: Ledger, key: str, now: datetime | None = None) -> str:
    """Why `authenticate` refused a key, to say in the 401: it names no more than the key's
    holder already knows (that the key existed, and when it expired)."""
    api_key = _api_key(ledger, key)
    expiry = None if api_key is None or api_key.revoked else api_key.expires_at
    if expiry is not None and (now or datetime.now(UTC)) >= expiry:
        return f"this API key expired at {expiry.isoformat()}"
    return "this API key is unknown or revoked"
