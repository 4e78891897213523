"""The shop served for real: `sluice serve --domain shop --demo` over HTTP, on SQLite and on
PostgreSQL, and the operators' commands on the store it wrote."""

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

from tests.http.documented_examples import (
    assert_program_examples_hold,
    assert_refused_as_documented,
    problem_example,
)
from tests.served import serving
from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")
PROBLEM = "application/problem+json"
_orders = count(1)


# A read right after a write reads the read models once they hold it (a direct read may
# lag the log by a moment otherwise); a write ignores it.
CONSISTENT = {"consistent": "true"}


def auth(who: str) -> dict[str, str]:
    return {"Authorization": f"Bearer sk-demo-{who}"}


def new_order() -> str:
    return f"o-{next(_orders)}"


def sluice(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def shop(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, dict[str, str]]]:
    """The base URL of a served shop with its demo data, and the environment it was served
    with (its store)."""
    with empty_store(request.param, tmp_path_factory.mktemp("shop")) as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
        env["SLUICE_DATABASE_URL"] = url
        with serving([SLUICE, "serve", "--domain", "shop", "--demo"], env) as base:
            yield base, env


@pytest.fixture
def base(shop: tuple[str, dict[str, str]]) -> str:
    return shop[0]


def call(base: str, who: str, name: str, arguments: dict[str, Any]) -> httpx.Response:
    return httpx.post(
        f"{base}/v1/use-cases/{name}",
        headers=auth(who),
        json=arguments,
        params=CONSISTENT,
        timeout=30,
    )


def order_of(order: str, customer: str, sku: str, quantity: int) -> dict[str, Any]:
    return {"order": order, "customer": customer, "sku": sku, "quantity": quantity}


def stock(base: str, sku: str) -> int:
    answer = call(base, "alice", "get_product", {"sku": sku})
    assert answer.status_code == 200, answer.text
    result: int = answer.json()["result"]["stock"]
    return result


def last_position(base: str) -> int:
    """The position of the log's last event, as an auditor reads the log."""
    after, last = 0, 0
    while True:
        page = httpx.get(
            f"{base}/v1/events", params={"after": after, "limit": 1000}, headers=auth("auditor")
        )
        assert page.status_code == 200, page.text
        if not page.json():
            return last
        last = after = page.json()[-1]["position"]


def problem(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    return body


def test_the_directory_is_the_shops(base: str) -> None:
    directory = httpx.get(f"{base}/v1/directory", headers=auth("alice"))

    assert directory.status_code == 200
    assert directory.text.startswith("You act on a shop's products and orders")
    assert "- place_order [write]" in directory.text
    assert "add_product" not in directory.text  # staff's, not a customer's


def test_the_demo_lists_its_products_with_their_suppliers_notes(base: str) -> None:
    listed = call(base, "alice", "list_products", {})

    assert listed.status_code == 200, listed.text
    products = {p["sku"]: p for p in listed.json()["result"]}
    assert set(products) == {"tea-green", "mug", "kettle"}
    assert (products["mug"]["price"], products["mug"]["note_by"]) == ("12.00", "claywork")


def test_a_customer_places_its_own_order_directly(base: str) -> None:
    order, before = new_order(), stock(base, "tea-green")

    placed = call(base, "alice", "place_order", order_of(order, "alice", "tea-green", 2))

    assert placed.status_code == 200, placed.text
    outcome = placed.json()
    assert (outcome["status"], outcome["changed"]) == ("committed", 2)
    assert [(e["account"], e["type"]) for e in outcome["events"]] == [
        (order, "Placed"),
        ("tea-green", "Reserved"),
    ]
    assert outcome["result"]["total"] == "9.00"
    assert stock(base, "tea-green") == before - 2
    read = call(base, "alice", "get_order", {"order": order, "customer": "alice"})
    assert read.json()["result"]["status"] == "placed"


def test_a_customer_ordering_as_another_is_refused_and_nothing_is_written(base: str) -> None:
    before = last_position(base)

    refused = call(base, "alice", "place_order", order_of(new_order(), "bob", "mug", 1))

    body = problem(refused, 403)
    assert "customer bob" in body["detail"]
    assert last_position(base) == before + 2  # the refused run's record alone


def test_ordering_more_than_the_stock_is_the_shops_refusal(base: str) -> None:
    before, kettles = last_position(base), stock(base, "kettle")

    refused = call(base, "alice", "place_order", order_of(new_order(), "alice", "kettle", 99))

    body = problem(refused, 422)
    assert f"product kettle has only {kettles} in stock, not 99" in body["detail"]
    assert stock(base, "kettle") == kettles
    assert last_position(base) == before + 2  # the refused run's record alone


def test_a_program_whose_second_call_fails_appends_nothing(base: str) -> None:
    before, mugs = last_position(base), stock(base, "mug")
    source = (
        f'place_order(order="{new_order()}", customer="alice", sku="mug", quantity=1)\n'
        f'place_order(order="{new_order()}", customer="alice", sku="kettle", quantity=99)\n'
    )

    proposed = httpx.post(
        f"{base}/v1/programs", headers=auth("alice"), json={"language": "python", "source": source}
    )

    assert proposed.status_code in (201, 422), proposed.text
    shown = proposed.json()
    preview = shown.get("preview", shown)
    assert "product kettle has only" in json.dumps(preview)
    assert stock(base, "mug") == mugs
    written = events_after(base, before)
    # Only the run's own record (proposed, failed) is written: no product, no order.
    assert [e["type"] for e in written if not e["type"].startswith("Run.")] == [], written


def events_after(base: str, after: int) -> list[dict[str, Any]]:
    page = httpx.get(f"{base}/v1/events", params={"after": after}, headers=auth("auditor"))
    assert page.status_code == 200, page.text
    found: list[dict[str, Any]] = page.json()
    return found


def test_a_preview_confirmed_by_its_hash_commits_what_it_showed(base: str) -> None:
    order, teas = new_order(), stock(base, "tea-green")
    source = (
        f'placed = place_order(order="{order}", customer="alice", sku="tea-green", quantity=1)\n'
        f'pay_order(order="{order}", amount=placed["total"])\n'
        f'ship_order(order="{order}")\n'
    )

    proposed = httpx.post(
        f"{base}/v1/programs", headers=auth("teller"), json={"language": "python", "source": source}
    )
    assert proposed.status_code == 201, proposed.text
    proposal = proposed.json()
    assert stock(base, "tea-green") == teas  # a preview writes nothing
    confirmed = httpx.post(
        f"{base}/v1/programs/{proposal['id']}/confirm",
        headers=auth("teller"),
        json={"preview_hash": proposal["preview_hash"]},
    )

    assert confirmed.status_code == 200, confirmed.text
    outcome = confirmed.json()
    assert outcome["status"] == "committed"
    assert [(e["account"], e["type"], e["data"]) for e in outcome["events"]] == [
        (e["account"], e["type"], e["data"]) for e in proposal["preview"]["events"]
    ]
    assert [e["type"] for e in outcome["events"]] == ["Placed", "Reserved", "Paid", "Shipped"]
    assert stock(base, "tea-green") == teas - 1
    again = httpx.post(
        f"{base}/v1/programs/{proposal['id']}/confirm",
        headers=auth("teller"),
        json={"preview_hash": proposal["preview_hash"]},
    )
    assert stock(base, "tea-green") == teas - 1, again.text  # confirming twice commits once


def test_a_wrong_hash_confirms_nothing(base: str) -> None:
    source = f'place_order(order="{new_order()}", customer="alice", sku="mug", quantity=1)\n'
    proposal = httpx.post(
        f"{base}/v1/programs", headers=auth("alice"), json={"language": "python", "source": source}
    ).json()
    mugs = stock(base, "mug")

    refused = httpx.post(
        f"{base}/v1/programs/{proposal['id']}/confirm",
        headers=auth("alice"),
        json={"preview_hash": "0" * 64},
    )

    assert refused.status_code >= 400
    assert stock(base, "mug") == mugs


def test_cancelling_a_paid_order_refunds_it_and_releases_its_stock(base: str) -> None:
    order, kettles = new_order(), stock(base, "kettle")
    assert (
        call(base, "teller", "place_order", order_of(order, "bob", "kettle", 1)).status_code == 200
    )
    assert call(base, "teller", "pay_order", {"order": order, "amount": 35}).status_code == 200
    assert stock(base, "kettle") == kettles - 1

    wrong = call(base, "teller", "cancel_order", {"order": order})
    cancelled = call(base, "teller", "cancel_order", {"order": order, "refund": 35})

    assert "the refund of order" in problem(wrong, 422)["detail"]
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["result"]["status"] == "refunded"
    assert stock(base, "kettle") == kettles


def test_a_customer_may_not_take_payment_nor_read_anothers_order(base: str) -> None:
    order = new_order()
    assert call(base, "bob", "place_order", order_of(order, "bob", "mug", 1)).status_code == 200

    paying = call(base, "alice", "pay_order", {"order": order, "amount": 12})
    reading = call(base, "alice", "get_order", {"order": order, "customer": "bob"})

    problem(paying, 403)
    problem(reading, 403)


def test_the_log_verifies_and_replays_after_the_shops_runs(
    shop: tuple[str, dict[str, str]],
) -> None:
    base, env = shop
    order = new_order()
    assert call(base, "alice", "place_order", order_of(order, "alice", "mug", 1)).status_code == 200

    verified = sluice(env, "--domain", "shop", "audit", "verify", "--json")
    replayed = sluice(env, "--domain", "shop", "replay", "--from-scratch", "--json")

    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert json.loads(verified.stdout)["ok"] is True
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert all(r["equal"] for r in json.loads(replayed.stdout))


def test_sluice_domains_lists_the_bank_and_the_shop() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}

    listed = sluice(env, "domains")

    assert (listed.returncode, listed.stdout.split()) == (0, ["bank", "shop"])


# The shop's resources: derived from its read use cases (`application/shop/read_routes.py`).


def get(base: str, who: str, path: str, **params: Any) -> httpx.Response:
    asked = CONSISTENT | params
    return httpx.get(f"{base}/v1/{path}", headers=auth(who), params=asked, timeout=30)


def test_the_products_are_a_resource_read_a_page_at_a_time(base: str) -> None:
    listed = call(base, "bob", "list_products", {}).json()["result"]

    first = get(base, "bob", "products", limit=2)
    rest = get(base, "bob", "products", cursor=first.json()["next_cursor"], limit=200)

    assert first.status_code == 200 and rest.status_code == 200, first.text + rest.text
    paged = first.json()["items"] + rest.json()["items"]
    assert len(first.json()["items"]) == 2 and rest.json()["next_cursor"] is None
    # By sku, each as list_products answers it.
    assert paged == sorted(listed, key=lambda product: product["sku"])
    one = get(base, "bob", "products/mug")
    assert one.status_code == 200 and one.json() == next(p for p in listed if p["sku"] == "mug")


def test_a_product_that_is_not_there_or_no_sku_is_not_found(base: str) -> None:
    missing = get(base, "alice", "products/teapot")
    malformed = get(base, "alice", "products/Tea Pot")
    foreign = get(base, "alice", "products", cursor="nonsense")

    assert problem(missing, 404)["detail"] == "no product teapot"
    assert "'Tea Pot' is not a sku" in problem(malformed, 404)["detail"]
    assert "cursor" in problem(foreign, 422)["detail"]


def test_an_order_is_a_resource_its_customer_reads_and_no_other(base: str) -> None:
    order = new_order()
    placed = call(base, "alice", "place_order", order_of(order, "alice", "mug", 1))
    assert placed.status_code == 200, placed.text

    read = get(base, "alice", f"orders/{order}", customer="alice")
    by_bob = get(base, "bob", f"orders/{order}", customer="alice")
    as_bob = get(base, "bob", f"orders/{order}", customer="bob")
    unnamed = get(base, "alice", f"orders/{order}")
    nothing = get(base, "alice", "orders/o-never", customer="alice")

    assert read.status_code == 200 and read.json() == placed.json()["result"], read.text
    assert "alice" in problem(by_bob, 403)["detail"]
    # Another customer's order is as absent as one never placed.
    assert problem(as_bob, 404)["detail"] == f"get_order: no order {order}"
    assert "customer" in problem(unnamed, 422)["detail"]
    assert problem(nothing, 404)["detail"] == "get_order: no order o-never"


def test_the_shop_serves_its_own_resources_and_none_of_the_banks(base: str) -> None:
    document = httpx.get(f"{base}/openapi.json", timeout=30).json()

    paths = set(document["paths"])
    assert {"/v1/products", "/v1/products/{sku}", "/v1/orders/{order}"} <= paths
    assert not any(path.startswith("/v1/accounts") for path in paths)
    assert problem(get(base, "alice", "accounts"), 404)


def test_the_shops_openapi_examples_are_what_it_takes_and_answers(base: str) -> None:
    """The document's examples are the shop's (application/shop/api_examples.py), none of
    them the bank's: its program and plan run, its refusals read as documented."""
    with httpx.Client(base_url=base, timeout=30) as client:
        document = assert_program_examples_hold(client, auth("alice"))
        refused = client.post(
            "/v1/programs",
            headers=auth("alice"),
            json={"language": "python", "source": order_program(new_order(), "tea-black")},
        )
        not_yours = client.get(f"/v1/orders/{new_order()}", params={"customer": "bob"},
                               headers=auth("alice"))  # fmt: skip

    assert_refused_as_documented(document, refused)
    documented = problem_example(document, "/v1/orders/{order}", "403", "not-yours")
    assert problem(not_yours, 403)["detail"] == documented["detail"]
    text = json.dumps(document)
    assert "transfer" not in text and "TransferDebited" not in text
    for field in ('"account"', '"accounts"', '"Account"', '"Accounts"'):
        text = text.replace(field, "")  # the names of contract fields (an event's, /me's)
    assert "account" not in text.lower()


def order_program(order: str, sku: str) -> str:
    return f'place_order(order="{order}", customer="alice", sku="{sku}", quantity=2)'


def test_a_pending_order_names_the_product_that_moved_since_its_preview(base: str) -> None:
    """What a confirmation would meet as a conflict is told by the shop's own keys."""
    source = order_program(new_order(), "kettle")
    proposed = httpx.post(f"{base}/v1/programs", headers=auth("alice"), timeout=30,
                          json={"language": "python", "source": source})  # fmt: skip
    assert proposed.status_code == 201, proposed.text
    run_id = proposed.json()["id"]

    def moved() -> list[str]:
        read = httpx.get(f"{base}/v1/programs/{run_id}", headers=auth("alice"), timeout=30)
        assert read.status_code == 200, read.text
        names: list[str] = read.json()["moved_since_preview"]
        return names

    before = moved()
    bought = call(base, "bob", "place_order", order_of(new_order(), "bob", "kettle", 1))

    assert bought.status_code == 200, bought.text
    assert before == []
    assert moved() == ["kettle"]


def test_the_terminal_preview_shows_every_field_of_the_shops_events(tmp_path: Path) -> None:
    """`sluice run` shows each event with all its data, whatever the domain: an order's
    customer, lines and total, a reservation's quantity and order."""
    with empty_store("sqlite", tmp_path) as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
        env |= {"SLUICE_DATABASE_URL": url, "COLUMNS": "240"}
        assert sluice(env, "--domain", "shop", "demo").returncode == 0
        program = tmp_path / "order.py"
        program.write_text(order_program("o-77", "tea-green"), encoding="utf-8")

        shown = sluice(env, "run", str(program), "--as", "alice", "--domain", "shop")

    header = next(line for line in shown.stdout.splitlines() if line.startswith("┃"))
    assert [cell.strip() for cell in header.split("┃")[1:-1]] == [
        "#", "record", "event", "order", "customer", "lines", "total", "quantity"
    ], shown.stdout  # fmt: skip
    placed = next(line for line in shown.stdout.splitlines() if "Placed" in line)
    assert '[{"sku":"tea-green","quantity":2,"price":"4.50"}]' in placed
    assert "alice" in placed and "9.00" in placed
    reserved = next(line for line in shown.stdout.splitlines() if "Reserved" in line)
    assert "tea-green" in reserved and "o-77" in reserved
