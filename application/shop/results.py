"""What the shop's use cases return: plain values, each labelled with who wrote it.

Skus, prices, stock, totals and statuses are the shop's facts. A product's name is staff's
text (staff add products); a restock note is its supplier's (`note_by`), the text a party
outside the shop wrote, which a program's reader must never take for the shop's word.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal, cast

from pydantic import Field, WithJsonSchema

from application.labels import Fact, ResultModel, Text
from domain.shop.order import Order
from domain.shop.product import Product

Euros = Annotated[Decimal, WithJsonSchema({"type": "number"}, mode="validation")]
STAFF = "staff"
Status = Literal["placed", "paid", "shipped", "cancelled", "refunded"]


class ProductView(ResultModel):
    """A product, its price and its stock on hand."""

    sku: Annotated[str, Fact] = Field(description="The product's sku.")
    name: Annotated[str, Text(author=STAFF)] = Field(description="The product's name.")
    price: Annotated[Euros, Fact] = Field(description="The unit price, in euros.")
    stock: Annotated[int, Fact] = Field(description="Units on hand, not reserved by an order.")
    note: Annotated[str, Text(by="note_by")] = Field(
        description="The note of the last restock, as its supplier wrote it ('' for none)."
    )
    note_by: Annotated[str | None, Fact] = Field(
        description="The supplier who wrote the note; null before the first restock."
    )

    @classmethod
    def of(cls, product: Product) -> ProductView:
        return cls(
            sku=product.sku,
            name=product.name,
            price=product.price,
            stock=product.stock,
            note=product.last_note,
            note_by=product.last_supplier,
        )


class OrderLine(ResultModel):
    """One line of an order."""

    sku: Annotated[str, Fact] = Field(description="The product ordered.")
    quantity: Annotated[int, Fact] = Field(description="How many units.")
    price: Annotated[Euros, Fact] = Field(description="The unit price when it was ordered.")


class OrderView(ResultModel):
    """An order, its lines, its total and where it stands."""

    order: Annotated[str, Fact] = Field(description="The order id.")
    customer: Annotated[str, Fact] = Field(description="The customer who ordered.")
    lines: list[OrderLine] = Field(description="What was ordered.")
    total: Annotated[Euros, Fact] = Field(description="The total, in euros.")
    paid: Annotated[Euros, Fact] = Field(description="What was paid (0 before payment).")
    status: Annotated[Status, Fact] = Field(
        description="placed, paid, shipped, cancelled or refunded."
    )

    @classmethod
    def of(cls, order: Order) -> OrderView:
        return cls(
            order=order.order,
            customer=order.customer,
            lines=[OrderLine(sku=x.sku, quantity=x.quantity, price=x.price) for x in order.lines],
            total=order.total,
            paid=order.paid,
            status=cast(Status, order.status),
        )
