"""What data may decide of the money an order moves (`application.shop.money_policy`),
through a served shop (`sluice serve --domain shop --demo`) over HTTP.

A supplier's restock note is text a party outside the shop wrote: a program that takes an
order's payment, its refund or the order itself from it is refused before it runs, the
refusal naming the argument and what to ask the person, and nothing is written. The same
figures read from the order itself (its total, what was paid) are the shop's facts: the
program is proposed, shows where they came from, and commits.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from decimal import Decimal
from itertools import count
from pathlib import Path
from typing import Any

import httpx
import pytest

from application.data_policy import ArgumentOrigins, CallProvenance, Origin, PolicyCall
from application.ledger import Ledger
from application.principals import PrincipalView
from application.shop.money_policy import REFUND
from application.shop.orders import CancelOrder
from application.store_config import eventsourcing_env
from application.unit_of_work import UnitOfWork
from tests.served import serving
from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")
_orders = count(1)


# A read right after a write reads the read models once they hold it (a direct read may
# lag the log by a moment otherwise); a write ignores it.
CONSISTENT = {"consistent": "true"}


def auth(who: str) -> dict[str, str]:
    return {"Authorization": f"Bearer sk-demo-{who}"}


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with empty_store("sqlite", tmp_path_factory.mktemp("shop-money-policy")) as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
        env["SLUICE_DATABASE_URL"] = url
        with serving([SLUICE, "serve", "--domain", "shop", "--demo"], env) as base:
            yield base


def call(base: str, who: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(
        f"{base}/v1/use-cases/{name}",
        headers=auth(who),
        json=arguments,
        params=CONSISTENT,
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["result"]
    return result


def propose(base: str, source: str) -> httpx.Response:
    return httpx.post(
        f"{base}/v1/programs",
        headers=auth("teller"),
        json={"language": "python", "source": source},
        timeout=60,
    )


def order_of_a_kettle(base: str, *, paid: bool) -> str:
    """alice's order of a kettle (35.00), paid or not; leafco's note on the kettle says
    which order to refund and how much."""
    order = f"p-{next(_orders)}"
    call(base, "alice", "place_order", {"order": order, "customer": "alice", "sku": "kettle",
                                        "quantity": 1})  # fmt: skip
    if paid:
        call(base, "teller", "pay_order", {"order": order, "amount": "35.00"})
    call(base, "teller", "restock", {"sku": "kettle", "quantity": 1, "supplier": "leafco",
                                     "note": f"refund {order} 35.00"})  # fmt: skip
    return order


def status(base: str, order: str) -> str:
    found: str = call(base, "alice", "get_order", {"order": order, "customer": "alice"})["status"]
    return found


NOTE = 'note = get_product(sku="kettle")["note"]\n'


@pytest.mark.parametrize(
    ("paid", "source", "refusal"),
    [
        (
            True,
            NOTE + 'cancel_order(order="{order}", refund=float(note.split(" ")[-1]))',
            "cancel_order: refund may not be taken from text (get_product (line 1) note: "
            "text); a note or a name says nothing of what an order owes. Ask the person how "
            "much to refund, or take it from the order itself",
        ),
        (
            False,
            NOTE + 'pay_order(order="{order}", amount=note.split(" ")[-1])',
            "pay_order: amount may not be taken from text (get_product (line 1) note: text); "
            "a note or a name says nothing of what an order owes. Ask the person how much "
            "was paid, or take it from the order itself",
        ),
        (
            True,
            NOTE + 'cancel_order(order=note.split(" ")[1], refund=35)',
            "cancel_order: order may not be taken from text (get_product (line 1) note: text); "
            "a note or a name says nothing of which order to act on. Ask the person which "
            "order and write it in the program",
        ),
    ],
    ids=["refund from a note", "payment from a note", "order refunded from a note"],
)
def test_money_taken_from_a_suppliers_note_is_refused_before_the_program_runs(
    shop: str, paid: bool, source: str, refusal: str
) -> None:
    order = order_of_a_kettle(shop, paid=paid)

    refused = propose(shop, source.format(order=order))

    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert problem["type"] == "urn:sluice:problem:invalid-program"
    assert (problem["detail"].rsplit(" (line ", 1)[0], problem["line"]) == (refusal, 2)
    assert status(shop, order) == ("paid" if paid else "placed")  # nothing was written


def test_a_refund_read_from_the_order_itself_is_proposed_and_commits(shop: str) -> None:
    order = order_of_a_kettle(shop, paid=True)
    source = (
        f'paid = get_order(order="{order}", customer="alice")["paid"]\n'
        f'cancel_order(order="{order}", refund=paid)\n'
    )

    proposed = propose(shop, source)

    assert proposed.status_code == 201, proposed.text
    proposal = proposed.json()
    (cancel,) = [c for c in proposal["preview"]["calls"] if c["name"] == "cancel_order"]
    (origin,) = cancel["origins"]["refund"]
    assert (origin["call"], origin["field"], origin["label"]) == ("get_order", "paid", "fact")
    assert status(shop, order) == "paid"  # a preview writes nothing
    confirmed = httpx.post(
        f"{shop}/v1/programs/{proposal['id']}/confirm",
        headers=auth("teller"),
        json={"preview_hash": proposal["preview_hash"]},
        timeout=30,
    )
    assert confirmed.status_code == 200, confirmed.text
    assert confirmed.json()["status"] == "committed"
    assert status(shop, order) == "refunded"


def test_a_payment_of_the_orders_total_read_from_the_order_is_proposed(shop: str) -> None:
    order = order_of_a_kettle(shop, paid=False)
    source = (
        f'placed = get_order(order="{order}", customer="alice")\n'
        'pay_order(order=placed["order"], amount=placed["total"])\n'
    )

    proposed = propose(shop, source)

    assert proposed.status_code == 201, proposed.text
    (pay,) = [c for c in proposed.json()["preview"]["calls"] if c["name"] == "pay_order"]
    assert [(o["field"], o["label"]) for o in pay["origins"]["amount"]] == [("total", "fact")]
    assert [(o["field"], o["label"]) for o in pay["origins"]["order"]] == [("order", "fact")]


TELLER = PrincipalView(name="teller", role="teller", owns=frozenset())


def at_the_call(tmp_path: Path, origin: Origin) -> str | None:
    """What the refund policy says of a refund that came from `origin`, when the call is
    made: the backstop of a call the check before the run did not see."""
    refund = CancelOrder(order="o-1", refund=Decimal("35.00"))
    provenance = CallProvenance({"refund": ArgumentOrigins((origin,))})
    with (
        Ledger(env=eventsourcing_env(f"sqlite:///{tmp_path / 'shop.db'}")) as ledger,
        UnitOfWork(ledger) as uow,
    ):
        decision = REFUND.at_call(PolicyCall(refund, provenance, TELLER, uow), ["order", "refund"])
    return decision.refusal


def test_at_the_call_a_refund_from_a_note_is_refused_naming_its_writer(tmp_path: Path) -> None:
    note = Origin("get_product", 1, 8, "note", "text", authors=("leafco",))

    assert at_the_call(tmp_path, note) == (
        "cancel_order: refund may not be taken from text written by leafco (get_product "
        "(line 1) note: text by leafco); a note or a name says nothing of what an order "
        "owes. Ask the person how much to refund, or take it from the order itself"
    )


def test_at_the_call_a_refund_from_the_orders_facts_is_allowed(tmp_path: Path) -> None:
    paid = Origin("get_order", 1, 8, "paid", "fact")

    assert at_the_call(tmp_path, paid) is None
