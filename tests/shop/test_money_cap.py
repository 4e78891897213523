"""The cap on money moved holds for the shop: a payment and a refund each count."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import httpx

from tests.served import serving

SLUICE = str(Path(sys.executable).parent / "sluice")
TELLER = {"Authorization": "Bearer sk-demo-teller"}


def test_a_refund_after_a_payment_is_over_the_cap_and_nothing_is_written(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    env["SLUICE_DATABASE_URL"] = f"sqlite:///{tmp_path / 'shop.db'}"
    env["SLUICE_CAP_MAX_AMOUNT_PER_PROGRAM"] = "50"
    source = (
        'placed = place_order(order="o-1", customer="alice", sku="kettle", quantity=1)\n'
        'pay_order(order="o-1", amount=placed["total"])\n'
        'cancel_order(order="o-1", refund=placed["total"])\n'
    )
    with serving([SLUICE, "serve", "--domain", "shop", "--demo"], env) as base:
        proposed = httpx.post(
            f"{base}/v1/programs", headers=TELLER, json={"language": "python", "source": source}
        )
        order = httpx.post(
            f"{base}/v1/use-cases/get_order",
            headers=TELLER,
            json={"order": "o-1", "customer": "alice"},
        )

    assert (proposed.status_code, proposed.json()["line"]) == (422, 3), proposed.text
    # The amount itself came from the order's total, data: the refusal withholds it.
    assert proposed.json()["detail"] == (
        "cap max_amount_per_program: moving <value> more would bring the program to 70.00, "
        "over 50.00 (line 3, column 1)"
    )
    assert order.status_code == 422, order.text
    assert "no order o-1" in order.text
