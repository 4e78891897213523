"""The shop's demo: three products in stock, a customer alice, and a principal for each role.

Demo principals get the well-known keys the bank's have (`sk-demo-NAME`), so `--as alice`
works the same in either domain; for the demo data only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from eventsourcing.application import AggregateNotFoundError

from application.domains import Demo, DemoPrincipal, DemoRecord
from domain.shop.catalogue import CATALOGUE, Catalogue

if TYPE_CHECKING:
    from application.ledger import Ledger

DEMO_PRODUCTS = (
    ("tea-green", "Green tea", "4.50", 20, "leafco", "harvest of May"),
    ("mug", "Stoneware mug", "12.00", 5, "claywork", "handle glazed by hand"),
    ("kettle", "Kettle", "35.00", 2, "claywork", ""),
)

DEMO_PRINCIPALS = (
    DemoPrincipal("admin", "admin"),
    DemoPrincipal("teller", "teller"),
    DemoPrincipal("auditor", "auditor"),
    DemoPrincipal("alice", "customer", ("alice",)),
    DemoPrincipal("bob", "customer", ("bob",)),
)


def _products_added(ledger: Ledger) -> Iterable[str]:
    try:
        catalogue = ledger.load(Catalogue.id_for(CATALOGUE))
    except AggregateNotFoundError:
        return []
    assert isinstance(catalogue, Catalogue)
    # A product counts as present once added; its first restock is the same record's.
    return [name for sku in catalogue.skus for name in (sku, f"{sku}:stock")]


SHOP_DEMO = Demo(
    records=tuple(
        record
        for sku, title, price, stock, supplier, note in DEMO_PRODUCTS
        for record in (
            DemoRecord(sku, "add_product", {"sku": sku, "title": title, "price": price}),
            DemoRecord(
                f"{sku}:stock",
                "restock",
                {"sku": sku, "quantity": stock, "supplier": supplier, "note": note},
            ),
        )
    ),
    principals=DEMO_PRINCIPALS,
    present=_products_added,
    # `added tea-green, tea-green:stock, ...`: each product, then its first stock.
    made="added",
    made_none="no products",
    try_read="list_products",
)
