"""The shop's read models (its products and orders, declared by the shop) answer every read
as the use case itself answers it from the log, on SQLite and PostgreSQL, and a rebuild
from the log equals them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from application.domains import load
from application.read_models.replay import Replay
from application.unit_of_work import UnitOfWork
from application.use_case import UseCase
from domain.errors import DomainError
from gateway.bootstrap import Sluice
from gateway.core.errors import GatewayError
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from tests.conftest import TEST_CAPS
from tests.stores import empty_store

SHOP = load("shop")
Answer = tuple[str, Any]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shop(request: pytest.FixtureRequest, tmp_path: Path, sandbox: Sandbox) -> Iterator[Sluice]:
    with (
        empty_store(request.param, tmp_path) as url,
        Sluice(url, TEST_CAPS, sandbox=sandbox, domain=SHOP) as built,
    ):
        seed(built.gateway, SHOP.demo, ownable=SHOP.ownable)
        yield built


def direct(sluice: Sluice, who: str, name: str, arguments: dict[str, Any]) -> Answer:
    """A direct read (GET /v1/..., POST /v1/use-cases/NAME), caught up first."""
    principal = sluice.gateway.authenticate(f"sk-demo-{who}")
    try:
        return "answered", sluice.gateway.call(principal, name, arguments, consistent=True).result
    except GatewayError as refused:
        return "refused", str(refused).removeprefix(f"{name}: ")


def performed(sluice: Sluice, name: str, arguments: dict[str, Any]) -> Answer:
    """What the use case itself answers, from the events in the store."""
    use_case: type[UseCase[Any]] = next(u for u in SHOP.use_cases if u.name == name)
    try:
        value = use_case.model_validate(arguments).perform(UnitOfWork(sluice.ledger))
    except DomainError as refusal:
        return "refused", str(refusal)
    return "answered", use_case.result_adapter().dump_python(value, mode="json")


def act(sluice: Sluice, who: str, name: str, arguments: dict[str, Any]) -> None:
    principal = sluice.gateway.authenticate(f"sk-demo-{who}")
    try:
        sluice.gateway.call(principal, name, arguments)
    except GatewayError as refused:
        assert refused.kind == "refused", refused


HISTORY: list[tuple[str, str, dict[str, Any]]] = [
    ("teller", "add_product", {"sku": "cup", "title": "Cup", "price": "3.10"}),
    ("teller", "restock", {"sku": "cup", "quantity": 5, "supplier": "claywork", "note": "new"}),
    ("alice", "place_order", {"order": "r-1", "customer": "alice", "sku": "cup", "quantity": 2}),
    ("alice", "place_order", {"order": "r-2", "customer": "alice", "sku": "mug", "quantity": 1}),
    ("bob", "place_order", {"order": "r-3", "customer": "bob", "sku": "cup", "quantity": 9}),
    ("teller", "pay_order", {"order": "r-1", "amount": "6.20"}),
    ("teller", "ship_order", {"order": "r-1"}),
    ("teller", "pay_order", {"order": "r-2", "amount": "12.00"}),
    ("teller", "cancel_order", {"order": "r-2", "refund": "12.00"}),
    ("bob", "place_order", {"order": "r-4", "customer": "bob", "sku": "cup", "quantity": 1}),
    ("teller", "cancel_order", {"order": "r-4", "refund": "0"}),
]


def test_every_read_of_the_shop_is_answered_as_its_use_case_answers_it(shop: Sluice) -> None:
    for who, name, arguments in HISTORY:
        act(shop, who, name, arguments)
    reads: list[tuple[str, dict[str, Any]]] = [("list_products", {})]
    reads += [("get_product", {"sku": sku}) for sku in ("cup", "mug", "kettle", "nope")]
    reads += [
        ("get_order", {"order": order, "customer": customer})
        for order in ("r-1", "r-2", "r-3", "r-4", "r-9")
        for customer in ("alice", "bob")
    ]

    for name, arguments in reads:
        assert direct(shop, "auditor", name, arguments) == performed(shop, name, arguments), (
            name,
            arguments,
        )
    # The orders are kept by the shop's own read model, each as its customer's.
    owners = {row.owner for row in shop.read_models.store.documents("orders")}
    assert owners == {"alice", "bob"} and "products" in shop.read_models.names


def test_a_customer_reads_only_its_own_orders_from_the_read_models(shop: Sluice) -> None:
    for who, name, arguments in HISTORY[:5]:
        act(shop, who, name, arguments)

    mine = direct(shop, "alice", "get_order", {"order": "r-1", "customer": "alice"})
    theirs = direct(shop, "alice", "get_order", {"order": "r-1", "customer": "bob"})
    store = shop.read_models.store

    assert mine[0] == "answered" and mine[1]["lines"][0]["quantity"] == 2
    assert theirs[0] == "refused" and "bob" in theirs[1]
    assert [row.owner for row in store.documents("orders", owners=["bob"])] == []
    assert {row.owner for row in store.documents("orders", owners=["alice"])} == {"alice"}


def test_a_rebuild_of_the_shops_read_models_equals_them(shop: Sluice) -> None:
    for who, name, arguments in HISTORY:
        act(shop, who, name, arguments)
    shop.read_models.catch_up()

    compared = Replay(shop.ledger, SHOP.read_models).run(from_scratch=True)

    assert [(c.projection, c.equal) for c in compared] == [
        ("products", True),
        ("orders", True),
        ("runs", True),
    ]
    assert all(c.rows > 0 for c in compared)
