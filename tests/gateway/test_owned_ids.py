"""What a customer may own is the served domain's rule: the bank's accounts that exist, the
shop's any customer id; the form of an id is checked for every domain, and a refusal names
the id in the domain's words and registers nobody."""

from __future__ import annotations

import pytest

from application import principals
from application.bank.domain import BANK
from application.domains import OwnedWords
from application.ledger import Ledger
from application.principals import PrincipalError
from application.shop.domain import SHOP


def test_the_bank_lets_a_customer_own_only_an_account_that_exists(demo_ledger: Ledger) -> None:
    before = demo_ledger.recorder.max_notification_id()

    with pytest.raises(PrincipalError, match=r"^no account dan$"):
        principals.register(
            demo_ledger,
            "eve",
            "customer",
            ["bob", "dan"],
            ownable=BANK.ownable,
            words=BANK.owned_words,
        )

    assert demo_ledger.recorder.max_notification_id() == before
    principals.register(
        demo_ledger, "eve", "customer", ["bob"], ownable=BANK.ownable, words=BANK.owned_words
    )
    found = principals.find(demo_ledger, "eve")
    assert found is not None and found.owns == frozenset({"bob"})


def test_the_shop_lets_a_customer_own_any_customer_id(demo_ledger: Ledger) -> None:
    principals.register(
        demo_ledger, "dora", "customer", ["dora"], ownable=SHOP.ownable, words=SHOP.owned_words
    )

    found = principals.find(demo_ledger, "dora")
    assert found is not None and found.owns == frozenset({"dora"})


def test_an_id_the_domains_rule_refuses_is_named_in_its_words(demo_ledger: Ledger) -> None:
    before = demo_ledger.recorder.max_notification_id()

    with pytest.raises(PrincipalError, match=r"^owns: zed is not one a principal may own here$"):
        principals.register(demo_ledger, "eve", "customer", ["zed"], ownable=lambda *_: False)
    with pytest.raises(PrincipalError, match=r"^owns: 'Dora Smith' is not a customer id "):
        principals.register(demo_ledger, "eve", "customer", ["Dora Smith"], words=SHOP.owned_words)
    with pytest.raises(PrincipalError, match=r"^no reader zed$"):
        principals.register(
            demo_ledger,
            "eve",
            "customer",
            ["zed"],
            ownable=lambda *_: False,
            words=OwnedWords(unowned="no reader {id}"),
        )

    assert demo_ledger.recorder.max_notification_id() == before
