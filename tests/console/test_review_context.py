"""What the person deciding needs beside the preview, in a real browser: who proposed it
(an agent's key, and how it came), and a preview gone stale while it waited, said before
anyone decides, with a fresh preview a click away."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from application.principals import hash_key
from domain.principal import api_key_id
from tests.console.conftest import KEYS, api, balance, effect, sign_in

pytestmark = pytest.mark.browser


def euros(value: Decimal) -> str:
    return f"{value:.2f}"


def key_id(who: str) -> str:
    return api_key_id(hash_key(KEYS[who])).hex[:12]


def agent_proposes(served: str, source: str) -> str:
    with api(served, "alice-agent") as agent:
        answer = agent.post("/v1/programs", json={"language": "python", "source": source})
        assert answer.status_code == 201, answer.text
        run_id: str = answer.json()["id"]
        return run_id


def test_an_agent_keys_proposal_says_so_and_how_it_came(page: Page, served: str) -> None:
    run_id = agent_proposes(served, 'transfer(payer="alice", payee="bob", amount=1, memo="x")')
    sign_in(page, served, "alice")

    page.goto(f"{served}/#/proposals/{run_id}")

    expect(page.locator("#proposal-meta")).to_contain_text(
        f"By alice's agent (key {key_id('alice-agent')}, over http), python"
    )
    # Her own, from the console, reads as hers.
    page.goto(f"{served}/#/ask")
    page.get_by_label("Program", exact=True).fill('transfer(payer="alice", payee="bob", amount=1)')
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("#proposal-meta")).to_contain_text(
        f"By alice (key {key_id('alice')}, over console)"
    )


def test_a_preview_gone_stale_while_waiting_says_so_before_the_decision(
    page: Page, served: str, artefacts: Path
) -> None:
    start = Decimal(balance(served, "alice"))
    run_id = agent_proposes(
        served,
        f'amount = 6 if get_balance(account="alice") > {start} + 1 else 5\n'
        'transfer(payer="alice", payee="bob", amount=amount)',
    )
    with api(served, "teller") as teller:  # before the person opens the review link
        deposit = teller.post("/v1/use-cases/deposit", json={"account": "alice", "amount": 10})
        assert deposit.status_code == 200, deposit.text
    sign_in(page, served, "alice")

    page.goto(f"{served}/#/proposals/{run_id}")

    moved = page.locator("#moved")
    expect(moved).to_be_visible()
    expect(moved).to_contain_text("alice moved since this preview was made")
    expect(page.locator("#stale")).to_be_hidden()
    first_hash = page.locator("#hash").inner_text()
    page.screenshot(path=artefacts / "moved.png", full_page=True)

    page.get_by_role("button", name="Preview again with today's numbers").click()

    stale = page.locator("#stale")
    expect(stale).to_be_visible()
    expect(stale).to_contain_text("alice TransferDebited: 5.00 → 6.00")
    expect(moved).to_be_hidden()
    assert page.locator("#hash").inner_text() != first_hash
    assert effect(page, "alice")[1:] == [euros(start + 10), euros(start + 4), "-6.00"]
    assert balance(served, "alice") == euros(start + 10)  # nothing of the program written

    page.get_by_role("button", name="Confirm").click()

    expect(page.locator("#outcome [data-field=status]")).to_have_text("committed")
    assert balance(served, "alice") == euros(start + 4)


def test_a_current_preview_shows_no_warning(page: Page, served: str) -> None:
    run_id = agent_proposes(served, 'transfer(payer="alice", payee="bob", amount=1)')
    sign_in(page, served, "alice")

    page.goto(f"{served}/#/proposals/{run_id}")

    expect(page.get_by_role("heading", name="Your decision")).to_be_visible()
    expect(page.locator("#moved")).to_be_hidden()
