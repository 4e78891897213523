"""An order: a customer's lines of sku and quantity, and its total at the prices of the day.

placed (its stock reserved) → paid → shipped; placed or paid → cancelled (its stock
released; a paid one refunded, its status `refunded`). The order holds the lines and the
total; reserving and releasing stock is each product's (the use cases do both in one unit
of work).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain.errors import DomainError
from domain.shop.errors import (
    OrderExistsError,
    OrderNotFoundError,
    OrderStatusError,
    PaymentMismatchError,
)
from domain.shop.money import ZERO, fmt, price
from domain.shop.product import quantity

PLACED, PAID, SHIPPED, CANCELLED, REFUNDED = "placed", "paid", "shipped", "cancelled", "refunded"


def order_id(order: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"sluice:shop:order:{order}")


@dataclass(frozen=True)
class Line:
    sku: str
    quantity: int
    price: Decimal

    @property
    def amount(self) -> Decimal:
        return self.price * self.quantity

    def as_data(self) -> dict[str, Any]:
        return {"sku": self.sku, "quantity": self.quantity, "price": self.price}


class Order(Aggregate):
    """An order named by a short id such as `o-1001`."""

    class Placed(Aggregate.Created):
        order: str
        customer: str
        lines: list[dict[str, Any]]
        total: Decimal

    # A payment and a refund name the customer: who pays the shop, or whom it pays back,
    # reads from the event alone (a preview of paying an order shows no Placed event).
    class Paid(Aggregate.Event):
        amount: Decimal
        customer: str

    class Shipped(Aggregate.Event):
        pass

    class Cancelled(Aggregate.Event):
        refunded: Decimal
        customer: str

    @staticmethod
    def id_for(key: str) -> UUID:
        return order_id(key)

    @staticmethod
    def not_found(key: str) -> DomainError:
        return OrderNotFoundError(key)

    @staticmethod
    def already_exists(key: str) -> DomainError:
        return OrderExistsError(key)

    @staticmethod
    def create_id(order: str, customer: str, lines: list[dict[str, Any]], total: Decimal) -> UUID:
        return order_id(order)

    @classmethod
    def place(cls, order: str, customer: str, lines: list[Line]) -> Order:
        for line in lines:
            quantity(line.quantity)
            price(line.price)
        total = sum((line.amount for line in lines), ZERO)
        return cls(
            order=order,
            customer=customer,
            lines=[line.as_data() for line in lines],
            total=price(total),
        )

    @event(Placed)
    def __init__(
        self, order: str, customer: str, lines: list[dict[str, Any]], total: Decimal
    ) -> None:
        self.order = order
        self.customer = customer
        self.lines = [Line(str(x["sku"]), int(x["quantity"]), Decimal(x["price"])) for x in lines]
        self.total = total
        self.status = PLACED
        self.paid = ZERO

    def pay(self, amount: Decimal) -> None:
        if self.status != PLACED:
            raise OrderStatusError(self.order, self.status, "paid")
        if amount != self.total:
            raise PaymentMismatchError(self.order, fmt(self.total), fmt(amount))
        self._paid(amount, self.customer)

    def ship(self) -> None:
        if self.status != PAID:
            raise OrderStatusError(self.order, self.status, "shipped (only a paid order ships)")
        self._shipped()

    def cancel(self, refund: Decimal) -> None:
        """`refund`: what the caller states it gives back, the paid total (0 if unpaid)."""
        if self.status not in (PLACED, PAID):
            raise OrderStatusError(self.order, self.status, "cancelled")
        if refund != self.paid:
            raise PaymentMismatchError(self.order, fmt(self.paid), fmt(refund), "refund")
        self._cancelled(self.paid, self.customer)

    @event(Paid)
    def _paid(self, amount: Decimal, customer: str) -> None:
        self.paid = amount
        self.status = PAID

    @event(Shipped)
    def _shipped(self) -> None:
        self.status = SHIPPED

    @event(Cancelled)
    def _cancelled(self, refunded: Decimal, customer: str) -> None:
        self.status = REFUNDED if refunded > 0 else CANCELLED
