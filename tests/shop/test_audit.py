"""The shop audited from the terminal, on SQLite and on PostgreSQL: an order's and a
product's timeline, their state at a point of the log, the log naming them, and refusals
that name what was asked and change nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")


def sluice(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def shop(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return sluice(env, "--domain", "shop", *args)


def answer(done: subprocess.CompletedProcess[str]) -> Any:
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def env(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, str]]:
    """A shop with its demo data, where alice ordered two mugs and the teller took the pay."""
    with empty_store(request.param, tmp_path_factory.mktemp("audit")) as url:
        environment = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
        environment["SLUICE_DATABASE_URL"] = url
        assert shop(environment, "demo").returncode == 0
        placed = "order=o-1", "customer=alice", "sku=mug", "quantity=2"
        answer(shop(environment, "call", "place_order", *placed, "--as", "alice"))
        answer(shop(environment, "call", "pay_order", "order=o-1", "amount=24", "--as", "teller"))
        yield environment


def log(env: dict[str, str]) -> list[dict[str, Any]]:
    done = shop(env, "events")
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_an_orders_timeline_names_each_run_its_principal_and_confirmer(
    env: dict[str, str],
) -> None:
    timeline = answer(shop(env, "audit", "record", "order", "o-1", "--json"))
    table = shop(env, "audit", "record", "order", "o-1")

    assert [(e["type"], e["account"], e["run"]["principal"]) for e in timeline] == [
        ("Order.Placed", "o-1", "alice"),
        ("Order.Paid", "o-1", "teller"),
    ]
    assert timeline[1]["data"] == {"amount": "24.00", "customer": "alice"}
    assert timeline[1]["run"]["confirmed_by"] == "teller"
    assert '"use_case": "pay_order"' in timeline[1]["run"]["program_excerpt"]
    assert table.returncode == 0, table.stderr
    assert table.stdout.startswith("order o-1")
    assert "Placed" in table.stdout and "Paid" in table.stdout and "teller" in table.stdout


def test_a_products_timeline_holds_its_reservation_by_the_order(env: dict[str, str]) -> None:
    timeline = answer(shop(env, "audit", "record", "product", "mug", "--json"))

    assert [e["type"].split(".")[-1] for e in timeline] == ["Added", "Restocked", "Reserved"]
    assert timeline[-1]["data"] == {"quantity": 2, "order": "o-1"}
    assert timeline[-1]["run"]["principal"] == "alice"


def test_as_of_tells_an_order_and_a_product_at_a_point_of_the_log(env: dict[str, str]) -> None:
    placed, paid = answer(shop(env, "audit", "record", "order", "o-1", "--json"))
    at = str(placed["position"])

    order = answer(shop(env, "audit", "as-of", "o-1", "--kind", "order", "--at", at, "--json"))
    now = answer(shop(env, "audit", "as-of", "o-1", "--at", str(paid["position"]), "--json"))
    before = answer(shop(env, "audit", "as-of", "o-1", "--at", str(int(at) - 1), "--json"))
    mug = answer(shop(env, "audit", "as-of", "mug", "--kind", "product", "--at", at, "--json"))
    told = shop(env, "audit", "as-of", "o-1", "--at", at)

    assert order == {
        "order": "o-1",
        "exists": True,
        "customer": "alice",
        "status": "placed",
        "total": "24.00",
        "paid": "0.00",
        "lines": ["2 mug at 12.00"],
        "version": 1,
        "last_event_position": placed["position"],
        "position": placed["position"],
        "at": None,
    }
    assert (now["status"], now["paid"], now["version"]) == ("paid", "24.00", 2)
    assert before == {"order": "o-1", "exists": False, "position": int(at) - 1, "at": None}
    assert (mug["stock"], mug["version"]) == (5, 2)  # reserved by the order's next event
    assert (
        told.stdout.split()
        == (
            f"order o-1 at {at}: customer alice, status placed, total 24.00, paid 0.00, "
            f'lines ["2 mug at 12.00"], version 1 (last event at position {at})'
        ).split()
    )


def test_the_log_names_the_shops_records_by_their_keys(env: dict[str, str]) -> None:
    events = log(env)
    named = {(e["account"], e["type"]) for e in events if not e["type"].startswith("Run.")}
    placed = next(e for e in events if e["type"] == "Order.Placed")
    event = answer(shop(env, "audit", "event", str(placed["position"]), "--json"))

    assert {("o-1", "Order.Placed"), ("o-1", "Order.Paid"), ("mug", "Product.Reserved")} <= named
    assert (None, "Catalogue.Started") in named  # not a kind the audit follows by key
    assert (event["account"], event["run"]["principal"]) == ("o-1", "alice")


NO_CUSTOMER = "domain shop keeps no customer to audit (its kinds: order, product)"
REFUSED = [
    (("audit", "record", "order", "o-404"), 1, "no order o-404"),
    (("audit", "record", "product", "teapot"), 1, "no product teapot"),
    (("audit", "as-of", "o-404", "--at", "3"), 1, "no order o-404"),
    (("audit", "as-of", "teapot", "--kind", "product", "--at", "3"), 1, "no product teapot"),
    (
        ("audit", "account", "o-1"),
        2,
        "domain shop keeps no account to audit (its kinds: order, product)",
    ),
    (("audit", "record", "customer", "alice"), 2, NO_CUSTOMER),
    (("audit", "as-of", "o-1", "--kind", "customer", "--at", "3"), 2, NO_CUSTOMER),
]


def test_an_unknown_record_or_kind_is_named_and_nothing_changes(env: dict[str, str]) -> None:
    before = log(env)

    refused = [shop(env, *command) for command, _, _ in REFUSED]

    assert [(r.returncode, r.stdout, r.stderr.strip()) for r in refused] == [
        (code, "", f"error: {message}") for _, code, message in REFUSED
    ]
    assert log(env) == before


def test_the_bank_audits_its_accounts_as_audit_account_does(tmp_path: Path) -> None:
    with empty_store("sqlite", tmp_path) as url:
        environment = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
        environment["SLUICE_DATABASE_URL"] = url
        assert sluice(environment, "demo").returncode == 0

        for form in ((), ("--json",)):
            as_record = sluice(environment, "audit", "record", "account", "bob", *form)
            as_account = sluice(environment, "audit", "account", "bob", *form)
            assert as_record.returncode == 0, as_record.stderr
            assert as_record.stdout == as_account.stdout
        order = sluice(environment, "audit", "record", "order", "o-1")

    assert (order.returncode, order.stderr.strip()) == (
        2,
        "error: domain bank keeps no order to audit (its kinds: account)",
    )
