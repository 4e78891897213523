"""A product: its sku, name, price and the stock on hand that orders reserve.

A restock carries a note its supplier wrote (`note_by`): text of a party, which a reader
of the product sees as that supplier's words, never as the shop's.
"""

from __future__ import annotations

from decimal import Decimal
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain.errors import DomainError
from domain.shop.errors import (
    InvalidQuantityError,
    OutOfStockError,
    ProductExistsError,
    ProductNotFoundError,
)
from domain.shop.money import price


def product_id(sku: str) -> UUID:
    """The aggregate id of a sku: stable, so a sku finds its product."""
    return uuid5(NAMESPACE_URL, f"sluice:shop:product:{sku}")


def quantity(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidQuantityError(value)
    return value


class Product(Aggregate):
    """A product named by its sku, such as `tea-green`."""

    class Added(Aggregate.Created):
        sku: str
        name: str
        price: Decimal

    class Restocked(Aggregate.Event):
        quantity: int
        supplier: str
        note: str

    class Reserved(Aggregate.Event):
        quantity: int
        order: str

    class Released(Aggregate.Event):
        quantity: int
        order: str

    # How a unit of work finds one by its business key (application/unit_of_work.py).
    @staticmethod
    def id_for(key: str) -> UUID:
        return product_id(key)

    @staticmethod
    def not_found(key: str) -> DomainError:
        return ProductNotFoundError(key)

    @staticmethod
    def already_exists(key: str) -> DomainError:
        return ProductExistsError(key)

    @staticmethod
    def create_id(sku: str, name: str, price: Decimal) -> UUID:
        return product_id(sku)

    @classmethod
    def add(cls, sku: str, name: str, unit_price: Decimal) -> Product:
        return cls(sku=sku, name=name, price=price(unit_price))

    @event(Added)
    def __init__(self, sku: str, name: str, price: Decimal) -> None:
        self.sku = sku
        self.name = name
        self.price = price
        self.stock = 0
        # The last restock's note and its supplier: what a reader of the product sees.
        self.last_note = ""
        self.last_supplier: str | None = None

    def restock(self, count: int, supplier: str, note: str) -> None:
        self._restocked(quantity(count), supplier, note)

    def reserve(self, count: int, order: str) -> None:
        wanted = quantity(count)
        if wanted > self.stock:
            raise OutOfStockError(self.sku, self.stock, wanted)
        self._reserved(wanted, order)

    def release(self, count: int, order: str) -> None:
        self._released(quantity(count), order)

    @event(Restocked)
    def _restocked(self, quantity: int, supplier: str, note: str) -> None:
        self.stock += quantity
        self.last_note = note
        self.last_supplier = supplier

    @event(Reserved)
    def _reserved(self, quantity: int, order: str) -> None:
        self.stock -= quantity

    @event(Released)
    def _released(self, quantity: int, order: str) -> None:
        self.stock += quantity
