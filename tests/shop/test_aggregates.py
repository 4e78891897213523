"""The shop's aggregates alone: stock that never goes negative, an order's life."""

from __future__ import annotations

from decimal import Decimal

import pytest

from domain.shop.errors import (
    InvalidPriceError,
    InvalidQuantityError,
    OrderStatusError,
    OutOfStockError,
    PaymentMismatchError,
)
from domain.shop.order import Line, Order
from domain.shop.product import Product


def tea(stock: int = 5) -> Product:
    product = Product.add("tea", "Tea", Decimal("3.50"))
    if stock:
        product.restock(stock, "leafco", "fresh leaves")
    return product


def test_a_restock_keeps_its_suppliers_note_and_adds_stock() -> None:
    product = tea(stock=0)

    product.restock(4, "leafco", "ignore previous instructions")

    assert (product.stock, product.last_note, product.last_supplier) == (
        4,
        "ignore previous instructions",
        "leafco",
    )


def test_reserving_more_than_the_stock_is_refused_and_changes_nothing() -> None:
    product = tea(stock=2)
    before = len(product.pending_events)

    with pytest.raises(OutOfStockError, match="product tea has only 2 in stock, not 3"):
        product.reserve(3, "o-1")

    assert (product.stock, len(product.pending_events)) == (2, before)


def test_a_reservation_released_returns_its_stock() -> None:
    product = tea(stock=5)

    product.reserve(3, "o-1")
    product.release(3, "o-1")

    assert product.stock == 5


@pytest.mark.parametrize("count", [0, -1])
def test_a_quantity_is_a_whole_number_from_one(count: int) -> None:
    with pytest.raises(InvalidQuantityError):
        tea().reserve(count, "o-1")


@pytest.mark.parametrize("price", ["0", "-1", "0.001", "NaN"])
def test_a_price_is_positive_with_two_places(price: str) -> None:
    with pytest.raises(InvalidPriceError):
        Product.add("tea", "Tea", Decimal(price))


def test_an_order_totals_its_lines_and_is_paid_shipped() -> None:
    order = Order.place(
        "o-1", "alice", [Line("tea", 2, Decimal("3.50")), Line("mug", 1, Decimal("12"))]
    )

    order.pay(Decimal("19.00"))
    order.ship()

    assert (order.total, order.paid, order.status) == (
        Decimal("19.00"),
        Decimal("19.00"),
        "shipped",
    )


def test_a_payment_must_be_the_total() -> None:
    order = Order.place("o-1", "alice", [Line("tea", 2, Decimal("3.50"))])

    with pytest.raises(PaymentMismatchError, match=r"the payment of order o-1 is 7\.00, not 6\.00"):
        order.pay(Decimal("6.00"))


def test_a_paid_order_cancelled_is_refunded_what_was_paid() -> None:
    order = Order.place("o-1", "alice", [Line("tea", 2, Decimal("3.50"))])
    order.pay(Decimal("7.00"))

    with pytest.raises(PaymentMismatchError, match=r"the refund of order o-1 is 7\.00, not 0\.00"):
        order.cancel(Decimal(0))
    order.cancel(Decimal("7.00"))

    assert order.status == "refunded"


def test_an_unpaid_order_cancelled_is_cancelled_and_cannot_ship() -> None:
    order = Order.place("o-1", "alice", [Line("tea", 1, Decimal("3.50"))])

    order.cancel(Decimal(0))

    assert order.status == "cancelled"
    with pytest.raises(OrderStatusError, match="order o-1 is cancelled"):
        order.ship()
    with pytest.raises(OrderStatusError):
        order.cancel(Decimal(0))


def test_a_shipped_order_cannot_be_cancelled() -> None:
    order = Order.place("o-1", "alice", [Line("tea", 1, Decimal("3.50"))])
    order.pay(Decimal("3.50"))
    order.ship()

    with pytest.raises(OrderStatusError, match="order o-1 is shipped; it cannot be cancelled"):
        order.cancel(Decimal("3.50"))
