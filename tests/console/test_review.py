"""Review in a real browser: a preview a person can judge, then confirm, reject, or a stale
preview replaced by a fresh one with what changed."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.console.conftest import api, balance, effect, open_account, propose, sign_in

pytestmark = pytest.mark.browser


def euros(value: Decimal) -> str:
    return f"{value:.2f}"


def test_the_preview_shows_balances_before_and_after_and_confirming_commits_them(
    page: Page, served: str, artefacts: Path
) -> None:
    shop = open_account(served, "shop")
    before = Decimal(balance(served, "alice"))
    sign_in(page, served, "alice")
    propose(
        page,
        f'transfer(payer="alice", payee="{shop}", amount=7, memo="lunch")\n'
        'get_balance(account="alice")',
        request="Pay the shop for lunch",
    )

    # alice's own balance, before and after; the shop is not hers to read: the difference.
    assert effect(page, "alice") == ["alice", euros(before), euros(before - 7), "-7.00"]
    assert effect(page, shop) == [shop, "not yours to see", "not yours to see", "+7.00"]
    events = page.locator("#events tbody tr")
    expect(events).to_have_count(2)
    expect(events.nth(0)).to_contain_text("TransferDebited")
    expect(page.locator("#caps")).to_contain_text("transfer 1 of 10")
    expect(page.locator("#warnings")).to_contain_text(
        f"New payee: alice has never paid {shop} before"
    )
    expect(page.locator("#expiry")).to_contain_text("Expires in 14:")
    expect(page.locator("#program .tok-call").first).to_have_text("transfer")
    page.screenshot(path=artefacts / "review.png", full_page=True)

    page.get_by_role("button", name="Confirm").click()

    expect(page.locator("#outcome [data-field=status]")).to_have_text("committed")
    expect(page.locator("#outcome [data-field=changed]")).to_have_text("2 events")
    assert effect(page, "alice") == ["alice", "-7.00", euros(before - 7)]
    page.screenshot(path=artefacts / "outcome.png", full_page=True)
    assert balance(served, "alice") == euros(before - 7)
    assert balance(served, shop) == "7.00"


def test_rejecting_leaves_the_balances_as_they_were(page: Page, served: str) -> None:
    before = balance(served, "alice")
    sign_in(page, served, "alice")
    propose(page, 'transfer(payer="alice", payee="bob", amount=3)')
    assert effect(page, "alice")[1] == before

    page.get_by_role("button", name="Reject").click()

    expect(page.locator("#outcome [data-field=status]")).to_have_text("rejected")
    expect(page.locator("#outcome [data-field=changed]")).to_have_text("nothing")
    expect(page.locator("#effects caption")).to_have_text("Not applied: nothing was written.")
    assert effect(page, "alice") == ["alice", "-3.00", before]
    assert balance(served, "alice") == before


def test_a_preview_made_stale_by_a_concurrent_change_is_replaced_by_a_fresh_one(
    page: Page, served: str, artefacts: Path
) -> None:
    start = Decimal(balance(served, "alice"))
    sign_in(page, served, "alice")
    # The amount depends on what the program reads: a deposit meanwhile changes it. The
    # bound is 1 above the balance: a float literal equal to it may sit just below it.
    propose(
        page,
        f'amount = 6 if get_balance(account="alice") > {start} + 1 else 5\n'
        'transfer(payer="alice", payee="bob", amount=amount)',
    )
    assert effect(page, "alice")[1:] == [euros(start), euros(start - 5), "-5.00"]
    first_hash = page.locator("#hash").inner_text()

    with api(served, "teller") as teller:  # while the review page is open
        deposit = teller.post("/v1/use-cases/deposit", json={"account": "alice", "amount": 10})
        assert deposit.status_code == 200, deposit.text
    page.get_by_role("button", name="Confirm").click()

    stale = page.locator("#stale")
    expect(stale).to_be_visible()
    expect(stale).to_contain_text("alice TransferDebited: 5.00 → 6.00")
    expect(stale).to_contain_text("bob TransferCredited: 5.00 → 6.00")
    expect(stale).to_contain_text(f"alice's balance before: {euros(start)} → {euros(start + 10)}")
    # The fresh preview's rows may be drawn just after the notice: wait for its hash first.
    expect(page.locator("#hash")).not_to_have_text(first_hash)
    assert effect(page, "alice")[1:] == [euros(start + 10), euros(start + 4), "-6.00"]
    assert balance(served, "alice") == euros(start + 10)  # nothing of the program was written
    page.screenshot(path=artefacts / "stale.png", full_page=True)

    page.get_by_role("button", name="Confirm").click()  # the fresh preview, by its own hash

    expect(page.locator("#outcome [data-field=status]")).to_have_text("committed")
    assert balance(served, "alice") == euros(start + 4)


def test_a_refused_program_is_explained_beside_the_editor(page: Page, served: str) -> None:
    sign_in(page, served, "alice")
    page.get_by_label("Program", exact=True).fill('transfer(payer="alice", payee="dan", amount=1)')
    page.get_by_role("button", name="Preview").click()

    expect(page.locator("#program-problem")).to_have_text(
        "transfer: no account dan (line 1, column 1)"
    )
    expect(page.get_by_role("heading", name="Ask", exact=True)).to_be_visible()


def test_only_the_proposer_is_offered_confirm_and_reject(page: Page, served: str) -> None:
    with api(served, "alice") as alice:
        proposal = alice.post(
            "/v1/programs",
            json={"language": "python", "source": 'transfer(payer="alice", payee="bob", amount=1)'},
        ).json()
    sign_in(page, served, "auditor")

    page.goto(f"{served}/#/proposals/{proposal['id']}")

    expect(page.locator("#status")).to_have_text("Only alice can confirm or reject this proposal.")
    expect(page.get_by_role("button", name="Confirm")).to_be_hidden()
    # The auditor reads every account: the payee's balances are shown too.
    assert effect(page, "bob")[1:3] != ["not yours to see", "not yours to see"]


def test_an_agent_key_sees_its_proposal_but_is_not_offered_confirm(page: Page, served: str) -> None:
    with api(served, "alice-agent") as agent:
        proposal = agent.post(
            "/v1/programs",
            json={"language": "python", "source": 'transfer(payer="alice", payee="bob", amount=1)'},
        ).json()
    sign_in(page, served, "alice-agent")

    page.goto(f"{served}/#/proposals/{proposal['id']}")

    expect(page.locator("#status")).to_have_text(
        "This key is an agent's: it may propose, not confirm. "
        "Sign in with alice's own key to decide."
    )
    expect(page.get_by_role("button", name="Confirm")).to_be_hidden()
