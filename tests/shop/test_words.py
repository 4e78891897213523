"""The gateway's own texts speak the served domain's words: the shop's, served, never the
bank's accounts; the bank's texts stay as its own tests pin them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from application.bank.domain import BANK
from application.shop.domain import SHOP
from gateway.agent.prose import Support, check
from gateway.agent.verifier import verify_planner_answer
from gateway.interfaces.cli.serving import _say_how_to_start
from tests.served import serving
from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")


def auth(who: str) -> dict[str, str]:
    return {"Authorization": f"Bearer sk-demo-{who}"}


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    with empty_store("sqlite", tmp_path_factory.mktemp("shop-words")) as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
        env["SLUICE_DATABASE_URL"] = url
        with serving([SLUICE, "serve", "--domain", "shop", "--demo"], env) as base:
            yield base, env


def propose(base: str, source: str) -> dict[str, Any]:
    proposed = httpx.post(
        f"{base}/v1/programs", headers=auth("alice"), json={"language": "python", "source": source}
    )
    assert proposed.status_code == 201, proposed.text
    found: dict[str, Any] = proposed.json()
    return found


def confirm(base: str, proposal: dict[str, Any]) -> httpx.Response:
    return httpx.post(
        f"{base}/v1/programs/{proposal['id']}/confirm",
        headers=auth("alice"),
        json={"preview_hash": proposal["preview_hash"]},
        timeout=30,
    )


def test_a_refused_commit_says_the_orders_and_products_changed(
    shop: tuple[str, dict[str, str]],
) -> None:
    base, _ = shop
    first = propose(base, 'place_order(order="w-1", customer="alice", sku="mug", quantity=1)')
    second = propose(base, 'place_order(order="w-2", customer="alice", sku="mug", quantity=1)')

    assert confirm(base, first).status_code == 200
    refused = confirm(base, second)

    said = refused.json()
    assert said["detail"].startswith(
        "the orders and products this program read or wrote changed since the preview"
    ), said


def test_a_malformed_owned_id_is_not_a_customer_id(shop: tuple[str, dict[str, str]]) -> None:
    _, env = shop

    command = ["--domain", "shop", "principal", "add", "eve", "--role", "customer"]
    added = subprocess.run(
        [SLUICE, *command, "--owns", "Eve Smith"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert added.returncode == 2, added.stdout + added.stderr
    assert "owns: 'Eve Smith' is not a customer id" in added.stderr, added.stderr


def test_the_owns_help_names_no_domain() -> None:
    helped = subprocess.run(
        [SLUICE, "principal", "add", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "COLUMNS": "200"},
    )

    assert "An id a customer owns" in helped.stdout
    assert "account" not in helped.stdout


def test_the_start_hint_calls_a_shop_read_with_a_customers_key(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _say_how_to_start("127.0.0.1", 8000, SHOP.demo)
    shop_hint = capsys.readouterr().out
    _say_how_to_start("127.0.0.1", 8000, BANK.demo)
    bank_hint = capsys.readouterr().out

    assert (
        "curl -s -H 'Authorization: Bearer sk-demo-alice' -X POST -H 'Content-Type: "
        "application/json' -d '{}' http://127.0.0.1:8000/v1/use-cases/list_products"
    ) in shop_hint
    assert "account" not in shop_hint
    assert (
        "  curl -s -H 'Authorization: Bearer sk-demo-alice' http://127.0.0.1:8000/v1/accounts\n"
    ) in bank_hint


def test_the_hinted_read_answers_on_the_served_shop(shop: tuple[str, dict[str, str]]) -> None:
    base, _ = shop

    listed = httpx.post(f"{base}/v1/use-cases/list_products", headers=auth("alice"), json={})

    assert listed.status_code == 200, listed.text


def test_withheld_sentences_name_an_order_not_an_account() -> None:
    support = Support(
        facts="", request="", data=(), ids=frozenset({"o-1"}), status=None, record="order"
    )

    _, withheld = check("Your order is frozen. o-1 holds 12.00 euros in total.", support)
    answer = verify_planner_answer("o-1 costs 12.00 euros.", "", frozenset(), SHOP.owned_words)

    reasons = " ".join(w.reason for w in withheld)
    assert "states an order's" in reasons
    assert "account" not in reasons
    assert "so it read no order: what it said about orders and products" in json.dumps(
        [part.text for part in answer.parts]
    )
