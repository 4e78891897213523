"""The shop: its use cases, in the order the directory lists them."""

from __future__ import annotations

from typing import Any

from application.shop.orders import CancelOrder, GetOrder, PayOrder, PlaceOrder, ShipOrder
from application.shop.products import AddProduct, GetProduct, ListProducts, Restock
from application.use_case import UseCase

SHOP_USE_CASES: tuple[type[UseCase[Any]], ...] = (
    ListProducts,
    GetProduct,
    PlaceOrder,
    GetOrder,
    PayOrder,
    ShipOrder,
    CancelOrder,
    AddProduct,
    Restock,
)

DIRECTORY_HEADER = (
    "You act on a shop's products and orders through the use cases below.\n"
    "Before using one, call find_actions with its name to get its full sheet."
)

__all__ = ["DIRECTORY_HEADER", "SHOP_USE_CASES"]
