"""The shop's use cases through a real unit of work on a SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from application.executor import execute
from application.labels import Fact, Leaf, Text
from application.ledger import Ledger
from application.shop.orders import CancelOrder, GetOrder, PayOrder, PlaceOrder, ShipOrder
from application.shop.products import AddProduct, GetProduct, ListProducts, Restock
from application.shop.results import ProductView
from application.store_config import eventsourcing_env
from application.unit_of_work import ConflictError, UnitOfWork
from application.use_case import UseCase
from domain.shop.catalogue import CATALOGUE, Catalogue
from domain.shop.errors import (
    OrderExistsError,
    OrderNotFoundError,
    OutOfStockError,
    ProductExistsError,
    ProductNotFoundError,
)
from domain.shop.product import Product


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    with Ledger(env=eventsourcing_env(f"sqlite:///{tmp_path / 'shop.db'}")) as opened:
        committed(opened, AddProduct(sku="mug", title="Mug", price=Decimal("12.00")))
        committed(opened, Restock(sku="mug", quantity=3, supplier="claywork", note="glazed"))
        yield opened


def committed(ledger: Ledger, *use_cases: UseCase[Any]) -> list[Any]:
    """Perform the use cases on one unit of work and commit it: their results."""
    with UnitOfWork(ledger) as uow:
        results = [execute(use_case, uow).value for use_case in use_cases]
        uow.commit()
    return results


def positions(ledger: Ledger) -> int:
    return ledger.recorder.max_notification_id() or 0


def test_a_product_added_and_restocked_is_listed_with_its_suppliers_note(ledger: Ledger) -> None:
    [listed] = committed(ledger, ListProducts())

    assert listed == [
        ProductView(sku="mug", name="Mug", price=Decimal("12.00"), stock=3, note="glazed",
                    note_by="claywork")
    ]  # fmt: skip


def test_the_note_is_labelled_its_suppliers_text_and_the_stock_a_fact() -> None:
    fields = GetProduct.labels().fields  # type: ignore[union-attr]

    assert fields["note"] == Leaf(Text(by="note_by"))
    assert fields["name"] == Leaf(Text(author="staff"))
    assert fields["stock"] == Leaf(Fact)


def test_the_field_rules_hold_a_customer_to_itself_and_count_the_money() -> None:
    assert (PlaceOrder.owned, GetOrder.owned) == (("customer",), ("customer",))
    assert (PayOrder.moves_amount, CancelOrder.moves_amount) == ("amount", "refund")
    assert PlaceOrder.moves_amount is None


def test_an_order_reserves_stock_and_its_events_are_named_by_their_keys(ledger: Ledger) -> None:
    with UnitOfWork(ledger) as uow:
        execute(PlaceOrder(order="o-1", customer="alice", sku="mug", quantity=2), uow)
        done = uow.commit()
        shown = [uow.event_json(c.event, c.position) for c in done]

    assert [(e["account"], e["type"]) for e in shown] == [("o-1", "Placed"), ("mug", "Reserved")]
    assert shown[0]["data"]["total"] == "24.00"
    assert committed(ledger, GetProduct(sku="mug"))[0].stock == 1


def test_more_than_the_stock_is_refused_and_nothing_is_pending(ledger: Ledger) -> None:
    before = positions(ledger)
    with UnitOfWork(ledger) as uow:
        with pytest.raises(OutOfStockError, match="product mug has only 3 in stock, not 4"):
            execute(PlaceOrder(order="o-1", customer="alice", sku="mug", quantity=4), uow)
        assert uow.collect() == []
        assert uow.commit() == []

    assert positions(ledger) == before


def test_an_order_paid_shipped_and_another_cancelled_with_its_refund(ledger: Ledger) -> None:
    committed(
        ledger,
        PlaceOrder(order="o-1", customer="alice", sku="mug", quantity=1),
        PayOrder(order="o-1", amount=Decimal(12)),
        ShipOrder(order="o-1"),
        PlaceOrder(order="o-2", customer="bob", sku="mug", quantity=2),
        PayOrder(order="o-2", amount=Decimal(24)),
    )
    [cancelled] = committed(ledger, CancelOrder(order="o-2", refund=Decimal(24)))
    [shipped, mug] = committed(
        ledger, GetOrder(order="o-1", customer="alice"), GetProduct(sku="mug")
    )

    assert (cancelled.status, cancelled.paid) == ("refunded", Decimal("24.00"))
    assert shipped.status == "shipped"
    assert mug.stock == 2


def test_another_customers_order_reads_as_absent(ledger: Ledger) -> None:
    committed(ledger, PlaceOrder(order="o-1", customer="alice", sku="mug", quantity=1))

    with pytest.raises(OrderNotFoundError, match="no order o-1"):
        committed(ledger, GetOrder(order="o-1", customer="bob"))


@pytest.mark.parametrize(
    ("use_case", "refusal"),
    [
        (AddProduct(sku="mug", title="Mug", price=Decimal(1)), ProductExistsError),
        (Restock(sku="cup", quantity=1, supplier="claywork"), ProductNotFoundError),
        (PlaceOrder(order="o-1", customer="alice", sku="cup", quantity=1), ProductNotFoundError),
        (PayOrder(order="o-9", amount=Decimal(1)), OrderNotFoundError),
    ],
)
def test_a_refusal_names_the_missing_or_present_thing(
    ledger: Ledger, use_case: UseCase[Any], refusal: type[Exception]
) -> None:
    with pytest.raises(refusal):
        committed(ledger, use_case)


def test_an_order_id_is_taken_once(ledger: Ledger) -> None:
    committed(ledger, PlaceOrder(order="o-1", customer="alice", sku="mug", quantity=1))

    with pytest.raises(OrderExistsError, match="order o-1 already exists"):
        committed(ledger, PlaceOrder(order="o-1", customer="bob", sku="mug", quantity=1))
    assert committed(ledger, GetProduct(sku="mug"))[0].stock == 2


def test_two_orders_of_the_last_unit_cannot_both_commit(ledger: Ledger) -> None:
    first, second = UnitOfWork(ledger), UnitOfWork(ledger)
    execute(PlaceOrder(order="o-1", customer="alice", sku="mug", quantity=3), first)
    execute(PlaceOrder(order="o-2", customer="bob", sku="mug", quantity=3), second)
    first.commit()

    with pytest.raises(ConflictError, match="conflict: one of mug, o-2 changed since it was read"):
        second.commit()
    assert committed(ledger, GetProduct(sku="mug"))[0].stock == 0


def test_what_was_only_read_guards_the_commit(ledger: Ledger) -> None:
    reader = UnitOfWork(ledger)
    execute(GetProduct(sku="mug"), reader)
    committed(ledger, Restock(sku="mug", quantity=1, supplier="claywork"))
    execute(AddProduct(sku="cup", title="Cup", price=Decimal(5)), reader)
    before = positions(ledger)

    with pytest.raises(ConflictError, match="changed since it was read; nothing was written"):
        reader.commit()
    assert positions(ledger) == before


def test_a_listing_is_guarded_by_the_catalogue(ledger: Ledger) -> None:
    reader = UnitOfWork(ledger)
    execute(ListProducts(), reader)
    committed(ledger, AddProduct(sku="cup", title="Cup", price=Decimal(5)))
    execute(Restock(sku="mug", quantity=1, supplier="claywork"), reader)

    with pytest.raises(ConflictError, match="catalogue catalogue changed"):
        reader.commit()


def test_add_refuses_a_key_that_is_not_the_aggregates(ledger: Ledger) -> None:
    uow = UnitOfWork(ledger)

    with pytest.raises(ValueError, match="its id is not its key's"):
        uow.add(Product.add("cup", "Cup", Decimal(5)), "saucer")
    with pytest.raises(ProductExistsError):
        uow.add(Product.add("mug", "Mug", Decimal(5)), "mug")
    assert uow.has(Catalogue, CATALOGUE)
    assert not uow.has(Product, "saucer")


def test_a_listing_of_an_empty_shop_is_empty(tmp_path: Path) -> None:
    with Ledger(env=eventsourcing_env(f"sqlite:///{tmp_path / 'empty.db'}")) as empty:
        assert committed(empty, ListProducts()) == [[]]
