"""The console's own arithmetic and judgements, run in the browser by its real modules:
money in cents, warnings, what changed between two previews, and data shown as text."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from tests.console.conftest import propose, sign_in

pytestmark = pytest.mark.browser


def run(page: Page, module: str, body: str) -> Any:
    """`body` is a function of the module `m`; its value, back in Python."""
    return page.evaluate(
        f"async () => {{ const m = await import('/console/js/{module}'); {body} }}"
    )


def test_money_is_counted_in_whole_cents(page: Page, served: str) -> None:
    page.goto(f"{served}/")
    assert run(
        page,
        "money.js",
        "return [m.cents('12.5'), m.cents('-0.05'), m.cents('0.1') + m.cents('0.2'),"
        " m.euros(-5), m.euros(1000000), m.signed(1250), m.signed(0), m.cents('1e3')];",
    ) == [1250, -5, 30, "-0.05", "10000.00", "+12.50", "0.00", None]


EVENTS = """
const debit = (account, payee, amount) => ({account, type: 'TransferDebited',
  data: {amount, counterparty: payee, memo: ''}});
const credit = (account, payer, amount) => ({account, type: 'TransferCredited',
  data: {amount, counterparty: payer, memo: ''}});
"""


def test_warnings_name_large_amounts_and_new_payees(page: Page, served: str) -> None:
    page.goto(f"{served}/")
    found = run(
        page,
        "effects.js",
        EVENTS
        + """
        const events = [debit('alice', 'bob', '60.00'), credit('bob', 'alice', '60.00'),
                        debit('alice', 'carla', '1500.00'), debit('dan', 'bob', '1.00')];
        const balances = new Map([['alice', 10000], ['dan', 500]]);
        const statements = new Map([
          ['alice', [{kind: 'transfer_out', counterparty: 'bob'}]], ['dan', []]]);
        return m.warnings(events, balances, statements).map((w) => w.text);
        """,
    )
    assert found == [
        "Large amount: alice pays bob 60.00, over half of its balance of 100.00.",
        "Large amount: alice pays carla 1500.00, over 1000.00.",
        "New payee: alice has never paid carla before.",
        "New payee: dan has never paid bob before.",
    ]


def test_a_fresh_preview_is_compared_event_by_event(page: Page, served: str) -> None:
    page.goto(f"{served}/")
    lines = run(
        page,
        "effects.js",
        EVENTS
        + """
        const old = {preview: {result: null, events: [debit('alice', 'bob', '5.00'),
                                                      credit('bob', 'alice', '5.00')]}};
        const fresh = {preview: {result: null, events: [debit('alice', 'bob', '6.00')]}};
        return m.changes(old, fresh, new Map([['alice', 9300]]), new Map([['alice', 10300]]));
        """,
    )
    assert lines == [
        "alice TransferDebited: 5.00 → 6.00.",
        "No longer: bob TransferCredited 5.00.",
        "alice's balance before: 93.00 → 103.00 (+10.00).",
    ]


def test_markup_in_data_is_shown_as_text_never_run(page: Page, served: str) -> None:
    sign_in(page, served, "alice")
    memo = '<img src=x onerror="window.pwned = 1">'
    propose(page, f'transfer(payer="alice", payee="bob", amount=1, memo=\'{memo}\')')

    assert page.locator("#events tbody tr").first.locator("td").nth(5).inner_text() == memo
    assert page.locator("#events img").count() == 0
    assert page.evaluate("window.pwned") is None
    page.get_by_role("button", name="Reject").click()


def test_printed_output_is_inert_and_framed_apart_from_the_gateways_words(
    page: Page, served: str
) -> None:
    sign_in(page, served, "alice")
    printed = "\\x1b[2JPreviewed result: 0 events\\n<b>bold</b>"
    propose(page, f'print("{printed}")\ntransfer(payer="alice", payee="bob", amount=1)')

    # In its own frame, under its own heading, escaped: never in the gateway's result line.
    framed = page.locator("#printed-text").inner_text()
    assert framed == "\\x1b[2JPreviewed result: 0 events\n<b>bold</b>"
    assert page.locator("#printed").is_visible()
    assert "Printed by the program" in page.locator("#printed-title").inner_text()
    assert page.locator("#result").inner_text().count("Previewed result") == 1
    assert "0 events" not in page.locator("#result").inner_text()
    assert page.locator("#printed b").count() == 0
    page.get_by_role("button", name="Reject").click()
