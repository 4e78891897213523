"""Principals: keys shown once, stored only as hashes; registration refusals name the reason."""

from __future__ import annotations

import pytest

from application import principals
from application.bank.domain import BANK
from application.ledger import Ledger
from application.principals import PrincipalError, hash_key
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway


def test_a_new_key_authenticates_its_principal_and_is_never_stored(gateway: Gateway) -> None:
    key = principals.register(gateway.ledger, "dana", "customer", ["carla"])

    found = gateway.authenticate(key)

    assert (found.name, found.role, found.owns) == ("dana", "customer", frozenset({"carla"}))
    stored = b"".join(n.state for n in gateway.ledger.recorder.select_notifications(1, 10_000))
    assert key.encode() not in stored
    assert hash_key(key).encode() in stored


@pytest.mark.parametrize(
    ("name", "role", "owns", "reason"),
    [
        ("alice", "customer", [], "principal alice already exists"),
        ("Eve Smith", "customer", [], "'Eve Smith' is not a principal name"),
        ("eve", "root", [], "role 'root' is not one of customer, teller, auditor, admin"),
        ("eve", "customer", ["dan"], "no account dan"),
        ("eve", "teller", ["bob"], "a teller owns no accounts; only a customer does"),
    ],
)
def test_registration_refusals_name_the_reason_and_write_nothing(
    gateway: Gateway, name: str, role: str, owns: list[str], reason: str
) -> None:
    before = gateway.ledger.recorder.max_notification_id()

    with pytest.raises(PrincipalError, match=reason):
        principals.register(
            gateway.ledger, name, role, owns, ownable=BANK.ownable, words=BANK.owned_words
        )

    assert gateway.ledger.recorder.max_notification_id() == before


@pytest.mark.parametrize("key", [None, "", "sk-made-up", "sk-demo-mallory"])
def test_a_missing_or_unknown_key_is_unauthenticated(gateway: Gateway, key: str | None) -> None:
    with pytest.raises(GatewayError) as refused:
        gateway.authenticate(key)

    assert refused.value.kind == "unauthenticated"


def test_demo_principals_have_their_roles_and_accounts(gateway: Gateway) -> None:
    ledger: Ledger = gateway.ledger
    seen = {
        name: (p.role, sorted(p.owns))
        for name in ("alice", "bob", "carla", "teller", "auditor", "admin")
        if (p := principals.find(ledger, name))
    }

    assert seen == {
        "alice": ("customer", ["alice"]),
        "bob": ("customer", ["bob"]),
        "carla": ("customer", ["carla"]),
        "teller": ("teller", []),
        "auditor": ("auditor", []),
        "admin": ("admin", []),
    }
