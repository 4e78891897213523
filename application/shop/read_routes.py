"""The shop's resources under /v1, derived from its read use cases: the catalogue's products
(`list_products`), one of them, and a customer's order (`get_order`)."""

from __future__ import annotations

from application.read_routes import Listing, Record
from application.shop.orders import GetOrder
from application.shop.products import GetProduct, ListProducts
from application.shop.types import key_problem


def sku_problem(value: str) -> str | None:
    """Why `value` is no sku, as the shop's use cases say it; None when it is one."""
    return key_problem(value, "sku")


PRODUCTS = Listing(
    name="products",
    use_case=ListProducts,
    key="sku",
    one="product",
    guard=GetProduct,
    guard_argument="sku",
    id_problem=sku_problem,
    id_description="A product's sku, e.g. tea-green.",
)

ORDERS = Record(
    name="orders",
    use_case=GetOrder,
    argument="order",
    one="order",
    id_description="An order's id, e.g. o-1.",
)

SHOP_READ_ROUTES = (PRODUCTS, ORDERS)
