"""The shop's records as the audit follows them: orders by their id, products by their sku
(`sluice --domain shop audit record order o-1001`), each told by its state at a point."""

from __future__ import annotations

from typing import Any

from application.audited import AuditedRecord
from domain.shop.money import fmt
from domain.shop.order import Order
from domain.shop.product import Product


def _order(order: Any) -> dict[str, Any]:
    assert isinstance(order, Order)
    return {
        "customer": order.customer,
        "status": order.status,
        "total": fmt(order.total),
        "paid": fmt(order.paid),
        "lines": [f"{line.quantity} {line.sku} at {fmt(line.price)}" for line in order.lines],
    }


def _product(product: Any) -> dict[str, Any]:
    assert isinstance(product, Product)
    return {"name": product.name, "price": fmt(product.price), "stock": product.stock}


ORDERS = AuditedRecord(kind="order", aggregate=Order, key="order", state=_order)
PRODUCTS = AuditedRecord(kind="product", aggregate=Product, key="sku", state=_product)
