"""The shop's proposals tell the money they move, in the shop's words: a payment is the
customer paying the shop, a refund the shop paying the customer back. Served for real
(`sluice serve --domain shop --demo`), read from the inbox over HTTP and from `sluice
proposals`; and a customer acting as another is refused in the shop's words."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from itertools import count
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.served import serving
from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")
TELLERS_AGENT = {"Authorization": "Bearer sk-agent-demo-teller"}
_orders = count(1)


def auth(who: str) -> dict[str, str]:
    return {"Authorization": f"Bearer sk-demo-{who}"}


def sluice(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """A served shop with its demo data, and the environment it was served with."""
    with empty_store("sqlite", tmp_path_factory.mktemp("shop")) as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
        # Wide enough that `sluice proposals` draws each move on one line.
        env |= {"SLUICE_DATABASE_URL": url, "COLUMNS": "160"}
        with serving([SLUICE, "serve", "--domain", "shop", "--demo"], env) as base:
            yield base, env


def call(base: str, who: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(
        f"{base}/v1/use-cases/{name}", headers=auth(who), json=arguments, timeout=30
    )
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["result"]
    return result


def placed_order(base: str, sku: str = "tea-green", quantity: int = 2) -> tuple[str, str]:
    """An order alice placed herself, and its total."""
    order = f"o-m{next(_orders)}"
    placed = call(
        base,
        "alice",
        "place_order",
        {"order": order, "customer": "alice", "sku": sku, "quantity": quantity},
    )
    return order, placed["total"]


def proposed_by_the_tellers_agent(base: str, source: str) -> dict[str, Any]:
    answer = httpx.post(
        f"{base}/v1/programs",
        headers=TELLERS_AGENT,
        json={"language": "python", "source": source, "request": "Take the payment"},
        timeout=60,
    )
    assert answer.status_code == 201, answer.text
    proposal: dict[str, Any] = answer.json()
    assert proposal["status"] == "pending"
    return proposal


def inbox_item(base: str, proposal: dict[str, Any]) -> dict[str, Any]:
    """The proposal as the inbox lists it, read once the read models hold it."""
    answer = httpx.get(
        f"{base}/v1/programs",
        headers=auth("teller"),
        params={"min_position": proposal["position"]},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    items: list[dict[str, Any]] = answer.json()["items"]
    [item] = [item for item in items if item["id"] == proposal["id"]]
    return item


def test_paying_an_order_is_the_customer_paying_the_shop(
    shop: tuple[str, dict[str, str]],
) -> None:
    base, env = shop
    order, total = placed_order(base)
    proposal = proposed_by_the_tellers_agent(base, f'pay_order(order="{order}", amount={total})\n')
    money = [{"payer": "alice", "payee": "shop", "amount": "9.00", "currency": "EUR"}]

    item = inbox_item(base, proposal)
    shown = httpx.get(f"{base}/v1/programs/{proposal['id']}", headers=auth("teller")).json()
    listed = sluice(env, "--domain", "shop", "proposals", "--as", "teller")
    as_json = sluice(env, "--domain", "shop", "proposals", "--as", "teller", "--json")

    assert total == "9.00"
    assert proposal["moves"] == item["moves"] == shown["moves"] == money
    assert item["proposed_by"].startswith("teller's agent (key ")
    assert listed.returncode == 0, listed.stderr
    assert "alice pays shop 9.00 EUR" in " ".join(listed.stdout.split())
    [row] = [i for i in json.loads(as_json.stdout)["items"] if i["id"] == proposal["id"]]
    assert row["moves"] == money


def test_cancelling_a_paid_order_is_the_shop_paying_the_customer_back(
    shop: tuple[str, dict[str, str]],
) -> None:
    base, env = shop
    order, total = placed_order(base, "mug", 1)
    call(base, "teller", "pay_order", {"order": order, "amount": total})
    unpaid, _ = placed_order(base, "mug", 1)
    proposal = proposed_by_the_tellers_agent(
        base,
        f'cancel_order(order="{order}", refund={total})\ncancel_order(order="{unpaid}")\n',
    )

    item = inbox_item(base, proposal)
    listed = sluice(env, "--domain", "shop", "proposals", "--as", "teller")

    # The unpaid order's cancellation moves no money: one move, the refund.
    assert item["moves"] == [
        {"payer": "shop", "payee": "alice", "amount": "12.00", "currency": "EUR"}
    ]
    assert "shop pays alice 12.00 EUR" in " ".join(listed.stdout.split())


def test_a_program_that_moves_no_money_says_so(shop: tuple[str, dict[str, str]]) -> None:
    base, env = shop
    proposal = proposed_by_the_tellers_agent(
        base, 'add_product(sku="cup-m", title="Cup", price=3)\n'
    )

    item = inbox_item(base, proposal)
    listed = sluice(env, "--domain", "shop", "proposals", "--as", "teller")

    assert item["moves"] == []
    [line] = [line for line in listed.stdout.splitlines() if proposal["id"][:8] in line]
    assert "no money (" in line


SOURCE = 'place_order(order="o-m-bob", customer="bob", sku="mug", quantity=1)\n'


def test_a_customer_ordering_as_another_is_refused_in_the_shops_words(
    shop: tuple[str, dict[str, str]],
) -> None:
    base, _ = shop
    order = {"order": "o-m-bob", "customer": "bob", "sku": "mug", "quantity": 1}

    direct = httpx.post(f"{base}/v1/use-cases/place_order", headers=auth("alice"), json=order)
    program = httpx.post(
        f"{base}/v1/programs",
        headers=auth("alice"),
        json={"language": "python", "source": SOURCE},
    )

    assert direct.status_code == 403, direct.text
    assert direct.json()["detail"] == (
        "place_order: customer bob is not one of principal alice's customers"
    )
    # A program naming bob is refused by its check, before it runs, in the same words.
    assert program.json()["detail"] == (
        "place_order: customer bob is not one of principal alice's customers (line 1, column 1)"
    )


def test_the_shops_demo_says_what_it_made_in_the_shops_words(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    env["SLUICE_DATABASE_URL"] = f"sqlite:///{tmp_path / 'sluice.db'}"

    seeded = sluice(env, "--domain", "shop", "demo")

    assert seeded.returncode == 0, seeded.stderr
    [summary] = [line for line in seeded.stdout.splitlines() if line.startswith("Demo data in")]
    assert ": added tea-green, tea-green:stock, mug, mug:stock, kettle, kettle:stock, " in summary
    assert "opened" not in summary and "account" not in summary


def test_a_teller_given_customers_to_own_is_refused_in_the_shops_words(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    env["SLUICE_DATABASE_URL"] = f"sqlite:///{tmp_path / 'sluice.db'}"

    refused = sluice(env, "--domain", "shop", "principal", "add", "eve", "--role", "teller",
                     "--owns", "bob")  # fmt: skip

    assert refused.returncode == 2, refused.stdout
    assert "a teller owns no customers; only a customer does" in refused.stderr
