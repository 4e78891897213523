"""The shop's read models: its products and its orders, each a record by aggregate id
(`application.read_models.documents`), and the reads they answer in the very shape the use
cases declare: the catalogue, a product, a customer's order. An order belongs to its
customer; a product to nobody (every principal reads the catalogue)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from eventsourcing.domain import AggregateEvent

from application.read_models.declared import DomainReadModels, Visible
from application.read_models.documents import Body, Change, Documents, Read, record_of, records
from application.read_models.store import ReadModelStore
from application.shop.orders import GetOrder
from application.shop.products import GetProduct, ListProducts
from application.shop.results import OrderView, ProductView
from domain.shop.errors import OrderNotFoundError
from domain.shop.money import ZERO
from domain.shop.order import CANCELLED, PAID, PLACED, REFUNDED, SHIPPED, Order
from domain.shop.product import Product

PRODUCTS, ORDERS = "products", "orders"


def _product(event: AggregateEvent, position: int, read: Read) -> Iterator[Change]:
    key = event.originator_id.hex
    if isinstance(event, Product.Added):
        view = ProductView(
            sku=event.sku, name=event.name, price=event.price, stock=0, note="", note_by=None
        )
        yield key, None, {"view": _json(view), "added": position}
        return
    body = read(key)
    assert body is not None, f"a product's event before it was added: {event}"
    view = body["view"]
    if isinstance(event, Product.Restocked):
        view["stock"] += event.quantity
        view["note"], view["note_by"] = event.note, event.supplier
    elif isinstance(event, Product.Reserved):
        view["stock"] -= event.quantity
    elif isinstance(event, Product.Released):
        view["stock"] += event.quantity
    yield key, None, body


def _order(event: AggregateEvent, position: int, read: Read) -> Iterator[Change]:
    key = event.originator_id.hex
    if isinstance(event, Order.Placed):
        view = OrderView.model_validate(
            {
                "order": event.order,
                "customer": event.customer,
                "lines": event.lines,
                "total": event.total,
                "paid": ZERO,
                "status": PLACED,
            }
        )
        yield key, event.customer, _json(view)
        return
    body = read(key)
    assert body is not None, f"an order's event before it was placed: {event}"
    if isinstance(event, Order.Paid):
        body["paid"], body["status"] = str(event.amount), PAID
    elif isinstance(event, Order.Shipped):
        body["status"] = SHIPPED
    elif isinstance(event, Order.Cancelled):
        body["status"] = REFUNDED if event.refunded > 0 else CANCELLED
    yield key, body["customer"], body


def _json(view: ProductView | OrderView) -> Body:
    return view.model_dump(mode="json")


def _list_products(query: ListProducts, visible: Visible, store: ReadModelStore) -> Any:
    # In the catalogue's order: the order they were added in.
    added = sorted(records(store.documents(PRODUCTS)), key=lambda body: body["added"])
    return [ProductView.model_validate(body["view"]) for body in added]


def _get_product(query: GetProduct, visible: Visible, store: ReadModelStore) -> Any:
    body = record_of(store, PRODUCTS, Product.id_for(query.sku).hex)
    if body is None:
        raise Product.not_found(query.sku)
    return ProductView.model_validate(body["view"])


def _get_order(query: GetOrder, visible: Visible, store: ReadModelStore) -> Any:
    body = record_of(store, ORDERS, Order.id_for(query.order).hex)
    # Another customer's order is as absent as one never placed.
    if body is None or body["customer"] != query.customer:
        raise OrderNotFoundError(query.order)
    return OrderView.model_validate(body)


SHOP_READ_MODELS = DomainReadModels(
    projections=(
        Documents(
            PRODUCTS,
            (Product.Added, Product.Restocked, Product.Reserved, Product.Released),
            _product,
        ).projection(),
        Documents(
            ORDERS, (Order.Placed, Order.Paid, Order.Shipped, Order.Cancelled), _order
        ).projection(),
    ),
    answers={ListProducts: _list_products, GetProduct: _get_product, GetOrder: _get_order},
)
