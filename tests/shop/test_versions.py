"""A customer sees its own orders' events whole: the shop says an order belongs to its
customer (`OwnedWords.owner_of`), so the unit of work shows their versions to that customer,
while a product's stay hidden from it (they would tell how often others ordered)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.served import serving
from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")


def auth(who: str) -> dict[str, str]:
    return {"Authorization": f"Bearer sk-demo-{who}"}


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with empty_store("sqlite", tmp_path_factory.mktemp("shop-versions")) as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
        env["SLUICE_DATABASE_URL"] = url
        with serving([SLUICE, "serve", "--domain", "shop", "--demo"], env) as base:
            yield base


def versions(events: list[dict[str, Any]]) -> list[tuple[str, str, int | None]]:
    return [(e["account"], e["type"], e["version"]) for e in events]


def test_a_customer_placing_its_order_directly_sees_the_orders_version(shop: str) -> None:
    arguments = {"order": "v-1", "customer": "alice", "sku": "mug", "quantity": 1}

    placed = httpx.post(
        f"{shop}/v1/use-cases/place_order", headers=auth("alice"), json=arguments, timeout=30
    )

    assert placed.status_code == 200, placed.text
    assert versions(placed.json()["events"]) == [("v-1", "Placed", 1), ("mug", "Reserved", None)]


def test_a_customers_preview_shows_its_orders_versions(shop: str) -> None:
    source = 'place_order(order="v-2", customer="alice", sku="mug", quantity=1)\n'

    proposed = httpx.post(
        f"{shop}/v1/programs", headers=auth("alice"), json={"language": "python", "source": source}
    )

    assert proposed.status_code == 201, proposed.text
    shown = versions(proposed.json()["preview"]["events"])
    assert shown == [("v-2", "Placed", 1), ("mug", "Reserved", None)]


def test_staff_see_every_version(shop: str) -> None:
    arguments = {"order": "v-3", "customer": "bob", "sku": "mug", "quantity": 1}

    placed = httpx.post(
        f"{shop}/v1/use-cases/place_order", headers=auth("teller"), json=arguments, timeout=30
    )

    assert placed.status_code == 200, placed.text
    assert all(version is not None for *_, version in versions(placed.json()["events"]))
