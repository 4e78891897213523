"""Orders: a customer places its own (staff any customer's); staff take payment, ship and
cancel. Placing reserves the stock; cancelling releases it, and refunds a paid order."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from pydantic import Field

from application.field_rules import MovesMoney, Owned, guarded
from application.permissions import EVERYONE, STAFF, Permission
from application.shop.money_policy import PAYMENT, REFUND
from application.shop.results import OrderView
from application.shop.types import CustomerId, OptionalPrice, OrderId, Price, Quantity, Sku
from application.unit_of_work import UnitOfWork
from application.use_case import Example, UseCase
from domain.shop.errors import OrderNotFoundError
from domain.shop.order import Line, Order
from domain.shop.product import Product


def _release(uow: UnitOfWork, order: Order) -> None:
    for line in order.lines:
        uow.get(Product, line.sku).release(line.quantity, order.order)


class PlaceOrder(UseCase[OrderView]):
    """Place an order of one product for a customer, reserving its stock.

    Refused if the order id is taken or the product has too little stock.
    """

    name = "place_order"
    kind = "write"
    permission = Permission.of("customer", *STAFF)
    max_calls = 10

    order: OrderId = Field(description="The new order's id, e.g. o-1001.")
    customer: Annotated[CustomerId, Owned] = Field(description="The customer ordering.")
    sku: Sku = Field(description="The product ordered.")
    quantity: Quantity = Field(description="How many units.")

    examples = (
        Example(
            "Order 2 tea-green for me, as order o-7.",
            'place_order(order="o-7", customer="{me}", sku="tea-green", quantity=2)',
            asked_by="owner",
        ),
    )

    def perform(self, uow: UnitOfWork) -> OrderView:
        # Every refusal comes before the first change: a refused call leaves nothing pending.
        if uow.has(Order, self.order):
            raise Order.already_exists(self.order)
        product = uow.get(Product, self.sku)
        line = Line(self.sku, self.quantity, product.price)
        placed = Order.place(self.order, self.customer, [line])
        product.reserve(self.quantity, self.order)
        uow.add(placed, self.order)
        return OrderView.of(placed)


class PayOrder(UseCase[OrderView]):
    """Record the payment of an order's total.

    Refused unless the order is placed and the amount is exactly its total.
    """

    name = "pay_order"
    kind = "write"
    permission = Permission.of(*STAFF)
    max_calls = 10

    # Which order was paid, and how much: never from text (`money_policy`).
    order: Annotated[OrderId, guarded(PAYMENT)] = Field(description="The order paid.")
    # The money a customer pays the shop: it counts toward the cap on money moved.
    amount: Annotated[Price, MovesMoney, guarded(PAYMENT)] = Field(
        description="The amount paid: the order's total."
    )

    examples = (
        Example(
            "Order o-7 was paid, 9 euros.",
            'pay_order(order="o-7", amount=9)',
            asked_by="staff",
        ),
    )

    def perform(self, uow: UnitOfWork) -> OrderView:
        order = uow.get(Order, self.order)
        order.pay(self.amount)
        return OrderView.of(order)


class ShipOrder(UseCase[OrderView]):
    """Ship a paid order."""

    name = "ship_order"
    kind = "write"
    permission = Permission.of(*STAFF)
    max_calls = 10

    order: OrderId = Field(description="The order shipped.")

    examples = (Example("Ship o-7.", 'ship_order(order="o-7")', asked_by="staff"),)

    def perform(self, uow: UnitOfWork) -> OrderView:
        order = uow.get(Order, self.order)
        order.ship()
        return OrderView.of(order)


class CancelOrder(UseCase[OrderView]):
    """Cancel an order that has not shipped: its stock is released, a paid one refunded.

    The refund stated must be what was paid (0 for an unpaid order).
    """

    name = "cancel_order"
    kind = "write"
    permission = Permission.of(*STAFF)
    max_calls = 10

    # Which order is refunded (its customer is paid back), and how much: never from text.
    order: Annotated[OrderId, guarded(REFUND)] = Field(description="The order cancelled.")
    # The money given back to the customer: it counts toward the cap on money moved.
    refund: Annotated[OptionalPrice, MovesMoney, guarded(REFUND)] = Field(
        default=Decimal(0),
        description="Euros refunded: the amount paid, or 0 when the order was not paid.",
        json_schema_extra={"default": 0},
    )

    examples = (
        Example("Cancel o-7, not paid yet.", 'cancel_order(order="o-7")', asked_by="staff"),
        Example(
            "Cancel o-8 and refund its 9 euros.",
            'cancel_order(order="o-8", refund=9)',
            asked_by="staff",
        ),
    )

    def perform(self, uow: UnitOfWork) -> OrderView:
        order = uow.get(Order, self.order)
        order.cancel(self.refund)
        _release(uow, order)
        return OrderView.of(order)


class GetOrder(UseCase[OrderView]):
    """Show an order of a customer: its lines, its total and its status."""

    name = "get_order"
    kind = "read"
    permission = Permission.of(*EVERYONE)

    order: OrderId = Field(description="The order.")
    customer: Annotated[CustomerId, Owned] = Field(description="The customer who placed it.")

    examples = (
        Example(
            "Where is my order o-7?",
            'get_order(order="o-7", customer="{me}")["status"]',
            asked_by="owner",
        ),
    )

    def perform(self, uow: UnitOfWork) -> OrderView:
        order = uow.get(Order, self.order)
        # Another customer's order is as absent as one never placed.
        if order.customer != self.customer:
            raise OrderNotFoundError(self.order)
        return OrderView.of(order)
