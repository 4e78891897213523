"""Before Confirm, the review page says where each value the program did not write itself
came from, and marks one that another party's text set."""
# ruff: noqa: E501 (programs and the sentences shown stay one line each)

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.console.conftest import api, propose, sign_in

pytestmark = pytest.mark.browser


def biller_sends_alice_a_bill(served: str, amount: str) -> str:
    """A new account that sends alice a cent with a bill in its memo; its name."""
    from tests.console.conftest import open_account

    biller = open_account(served, "biller")
    with api(served, "teller") as teller:
        teller.post(
            "/v1/use-cases/deposit", json={"account": biller, "amount": 1}
        ).raise_for_status()
        bill = {"payer": biller, "payee": "alice", "amount": "0.01", "memo": f"Bill due: {amount}"}
        teller.post("/v1/use-cases/transfer", json=bill).raise_for_status()
    return biller


def test_an_amount_set_by_a_bill_s_text_is_marked_before_confirm(
    page: Page, served: str, artefacts: Path
) -> None:
    biller = biller_sends_alice_a_bill(served, "12.50")
    sign_in(page, served, "alice")
    propose(
        page,
        f'bills = [e for e in statement(account="alice", limit=50) if e["counterparty"] == "{biller}"]\n'
        'transfer(payer="alice", payee="bob", amount=float(bills[0]["memo"].split()[-1]), memo="bill")',
        request="Pay bob what the bill says",
    )

    origins = page.locator("#origins li")
    expect(origins).to_have_count(1)
    expect(origins.first).to_contain_text(
        "transfer (line 2) amount: from statement (line 1) memo, text"
    )
    expect(origins.first).to_contain_text(f"TEXT WRITTEN BY {biller.upper()}")
    expect(origins.first).to_have_class("origin from-text")
    expect(page.locator("#warnings")).to_contain_text(
        f"From someone else's words: transfer's amount was set by text written by {biller}."
    )
    page.screenshot(path=artefacts / "review-origins.png", full_page=True)


def test_a_refund_says_its_payee_and_amount_are_facts_and_warns_of_no_text(
    page: Page, served: str
) -> None:
    biller = biller_sends_alice_a_bill(served, "5.00")
    sign_in(page, served, "alice")
    propose(
        page,
        f'paid = [e for e in statement(account="alice", limit=50) if e["counterparty"] == "{biller}"]\n'
        'transfer(payer="alice", payee=str(paid[0]["counterparty"]), amount=paid[0]["amount"])',
    )

    lines = page.locator("#origins li")
    expect(lines).to_have_count(2)
    expect(lines.nth(0)).to_contain_text("payee: from statement (line 1) counterparty, a fact")
    expect(lines.nth(1)).to_contain_text("amount: from statement (line 1) amount, a fact")
    expect(page.locator("#origins .from-text")).to_have_count(0)
    expect(page.locator("#warnings")).not_to_contain_text("someone else's words")
