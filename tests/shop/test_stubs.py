"""The shop's stubs define every model its results refer to: `get_order` answers an order
whose `lines` are `OrderLine`s, so the stubs a program is type-checked against (and a planner
reads) define `OrderLine` before `OrderView` names it, and a program reading a line passes."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from application.bank import BANK_USE_CASES
from application.shop import SHOP_USE_CASES
from gateway.core.stubs import render_stubs
from tests.served import serving
from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")


@pytest.mark.parametrize("documented", [False, True])
def test_the_shops_stubs_define_the_order_line_once_before_the_order(documented: bool) -> None:
    stubs = render_stubs(SHOP_USE_CASES, documented=documented)

    assert stubs.count("class OrderLine(TypedDict):") == 1
    assert stubs.index("class OrderLine(") < stubs.index("class OrderView(")
    assert "    lines: list[OrderLine]\n" in stubs


def test_the_banks_stubs_define_each_of_its_views_once() -> None:
    stubs = render_stubs(BANK_USE_CASES, documented=True)
    classes = [line for line in stubs.splitlines() if line.startswith("class ")]

    assert len(classes) == len(set(classes))


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with empty_store("sqlite", tmp_path_factory.mktemp("shop-stubs")) as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
        env["SLUICE_DATABASE_URL"] = url
        with serving([SLUICE, "serve", "--domain", "shop", "--demo"], env) as base:
            yield base


def test_a_program_reading_an_orders_line_passes_the_check_and_runs(shop: str) -> None:
    source = (
        'placed = place_order(order="o-lines", customer="alice", sku="mug", quantity=2)\n'
        'line = placed["lines"][0]\n'
        'order = get_order(order="o-lines", customer="alice")\n'
        '{"sku": line["sku"], "quantity": order["lines"][0]["quantity"]}\n'
    )

    proposed = httpx.post(
        f"{shop}/v1/programs",
        headers={"Authorization": "Bearer sk-demo-alice"},
        json={"language": "python", "source": source},
    )

    assert proposed.status_code == 201, proposed.text
    assert proposed.json()["preview"]["result"] == {"sku": "mug", "quantity": 2}
