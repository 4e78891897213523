"""A kind of record the audit follows: found by its key, its events by their topics, its
state shown and told; a kind that cannot be found by a key is refused when declared."""

from __future__ import annotations

from decimal import Decimal
from uuid import NAMESPACE_URL, uuid5

import pytest
from eventsourcing.domain import Aggregate, event

from application.audited import AuditedRecord, NotAuditedError, audited_kind
from application.bank.domain import BANK
from application.shop.domain import SHOP
from domain.errors import AccountNotFoundError
from domain.shop.errors import ProductNotFoundError
from domain.shop.product import Product, product_id


class Shelf(Aggregate):
    """Found by no key: it declares neither id_for nor not_found."""

    class Built(Aggregate.Created):
        name: str

    @event(Built)
    def __init__(self, name: str) -> None:
        self.name = name


def test_a_keyed_aggregate_gives_its_own_id_and_refusal() -> None:
    products = audited_kind("shop", SHOP.audited, "product")

    assert products.id_of("mug") == product_id("mug")
    assert isinstance(products.missing("mug"), ProductNotFoundError)
    assert str(products.missing("mug")) == "no product mug"
    assert products.created_topics == frozenset(
        {"domain.shop.product:Product.Added", "domain.shop.product:Product.Created"}
    )
    assert "domain.shop.product:Product.Reserved" in products.topics


def test_the_banks_accounts_are_found_by_name_and_told_by_balance() -> None:
    (accounts,) = BANK.audited
    state = {"owner": "Bob", "balance": "5.00", "status": "open"}

    assert accounts.kind == "account"
    assert accounts.id_of("bob") == uuid5(NAMESPACE_URL, "sluice:account:bob")
    assert isinstance(accounts.missing("bob"), AccountNotFoundError)
    assert accounts.told(state) == "balance 5.00, open, owner Bob"


def test_a_kind_found_by_no_key_is_refused_when_declared() -> None:
    with pytest.raises(TypeError, match="audited shelf: Shelf has no id_for; give one"):
        AuditedRecord(kind="shelf", aggregate=Shelf, key="name")

    given = AuditedRecord(
        kind="shelf",
        aggregate=Shelf,
        key="name",
        id_for=lambda key: uuid5(NAMESPACE_URL, key),
        not_found=AccountNotFoundError,
    )
    assert given.id_of("top") == uuid5(NAMESPACE_URL, "top")


def test_a_state_is_shown_by_its_public_fields_unless_the_kind_says() -> None:
    products = AuditedRecord(kind="product", aggregate=Product, key="sku")
    mug = Product.add("mug", "Stoneware mug", Decimal("12"))
    mug.restock(5, "claywork", "handle glazed")

    shown = products.state(mug)

    assert shown == {
        "sku": "mug",
        "name": "Stoneware mug",
        "price": "12.00",
        "stock": 5,
        "last_note": "handle glazed",
        "last_supplier": "claywork",
    }
    assert products.told({"stock": 5, "lines": ["2 mug"]}) == 'stock 5, lines ["2 mug"]'
    assert products.row({"type": "Product.Restocked", "data": {"quantity": 5}}) == (
        "Restocked",
        "quantity 5",
    )


def test_a_kind_the_domain_does_not_follow_is_named_with_those_it_does() -> None:
    with pytest.raises(NotAuditedError) as refused:
        audited_kind("shop", SHOP.audited, "account")

    assert str(refused.value) == "domain shop keeps no account to audit (its kinds: order, product)"
    assert str(NotAuditedError("library", "record", [])) == (
        "domain library keeps no record to audit (its kinds: none)"
    )
