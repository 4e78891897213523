"""The console as a newcomer meets it, in a real browser: a sign-in page that says truly how
long the key is kept, shows nothing of the signed-in navigation, and names the demo keys in
demo mode; an inbox that tells the decision at a glance and whose words a request is; a
count that follows a decision at once; and a read that is never shown as a confirmed
proposal."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.console.conftest import api, propose, sign_in

pytestmark = pytest.mark.browser


def _agent_proposes(base: str, payee: str, amount: int, request: str) -> str:
    """bob's agent proposes a payment over the API, as an MCP client's agent would."""
    source = f'transfer(payer="bob", payee="{payee}", amount={amount})'
    headers = {"Authorization": "Bearer sk-agent-demo-bob"}
    with httpx.Client(base_url=base, headers=headers, timeout=10) as agent:
        answer = agent.post(
            "/v1/programs", json={"language": "python", "source": source, "request": request}
        )
    assert answer.status_code == 201, answer.text
    run_id: str = answer.json()["id"]
    return run_id


def test_the_sign_in_page_tells_the_truth_and_shows_no_navigation(
    page: Page, served: str, browser: BrowserContext, artefacts: Path
) -> None:
    page.goto(f"{served}/")

    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    # Nothing of the signed-in navigation shows before anyone signs in.
    for link in ("Ask", "Inbox", "Audit"):
        expect(page.get_by_role("link", name=link, exact=True)).to_be_hidden()
    expect(page.get_by_role("button", name="Sign out")).to_be_hidden()
    # What it says of the key is what the session cookie does: the browser keeps it.
    intro = page.locator("#sign-in-title + p")
    expect(intro).to_contain_text("This browser keeps it until you sign out or quit the browser")
    expect(intro).not_to_contain_text("tab only")
    # In demo mode it names the demo keys: a person's, and their agent's.
    keys = page.locator("#demo-key-table")
    expect(keys).to_contain_text("sk-demo-alice")
    expect(keys).to_contain_text("sk-agent-demo-alice")
    expect(page.locator("#key-source")).to_contain_text("sluice principal key NAME")
    page.screenshot(path=artefacts / "sign-in.png", full_page=True)

    sign_in(page, served, "alice")
    expect(page.get_by_role("link", name="Audit", exact=True)).to_be_visible()
    # As said: another tab of this browser is signed in too.
    other = browser.new_page()
    try:
        other.goto(f"{served}/#/inbox")
        expect(other.get_by_role("heading", name="Inbox", exact=True)).to_be_visible()
    finally:
        other.close()


def test_the_inbox_tells_the_money_who_proposed_it_and_whose_words_the_request_is(
    page: Page, served: str, artefacts: Path
) -> None:
    with api(served, "teller") as teller:
        paid_in = teller.post("/v1/use-cases/deposit", json={"account": "bob", "amount": 20})
        assert paid_in.status_code == 200, paid_in.text
    made = _agent_proposes(served, "carla", 6, "Pay carla back for the tickets")
    sign_in(page, served, "bob")
    propose(page, 'transfer(payer="bob", payee="alice", amount=2)')  # his own, by hand

    page.get_by_role("link", name="Inbox").click()
    rows = page.locator("#inbox tbody tr")
    by_agent = rows.filter(has_text="bob pays carla 6.00 EUR")
    his_own = rows.filter(has_text="bob pays alice 2.00 EUR")
    expect(by_agent).to_have_count(1)
    expect(his_own).to_have_count(1)

    expect(by_agent).to_contain_text("bob pays carla 6.00 EUR")
    expect(by_agent).to_contain_text("bob's agent (key ")
    expect(by_agent).to_contain_text("over http")
    expect(by_agent).to_contain_text("bob's agent wrote: ")
    expect(by_agent.locator("q")).to_have_text("Pay carla back for the tickets")
    expect(by_agent).to_contain_text("pending")
    expect(by_agent.locator("time.left")).to_have_text(re.compile(r"^1[45]:\d\d left$"))
    expect(his_own).to_contain_text("bob pays alice 2.00 EUR")
    expect(his_own).to_contain_text("over console")
    expect(his_own).not_to_contain_text("bob's agent")
    page.screenshot(
        path=artefacts / "inbox-at-a-glance.png",
        clip={"x": 0, "y": 0, "width": 1280, "height": 420},
    )
    # Leave bob's inbox as it was found (other tests read it empty).
    own = his_own.get_by_role("link").get_attribute("href") or ""
    with api(served, "bob") as bob:
        for run_id in (made, own.rsplit("/", 1)[-1]):
            assert bob.post(f"/v1/programs/{run_id}/reject").status_code == 200


def test_the_count_goes_down_as_soon_as_a_proposal_is_decided(page: Page, served: str) -> None:
    with api(served, "teller") as teller:
        teller.post("/v1/use-cases/deposit", json={"account": "bob", "amount": 5})
    with api(served, "bob") as bob:
        waiting = len(bob.get("/v1/programs", params={"consistent": "true"}).json()["items"])
    sign_in(page, served, "bob")
    count = page.locator("#inbox-count")
    run_id = _agent_proposes(served, "alice", 1, "Pay alice a coffee")
    page.get_by_role("link", name="Inbox").click()
    expect(count).to_have_text(str(waiting + 1))

    page.goto(f"{served}/#/proposals/{run_id}")
    page.get_by_role("button", name="Confirm").click()
    expect(page.locator("#outcome [data-field=status]")).to_have_text("committed")

    # Without navigating anywhere, the header's count has followed.
    if waiting:
        expect(count).to_have_text(str(waiting))
    else:
        expect(count).to_be_hidden()


def test_a_read_is_shown_as_a_read_never_as_a_confirmed_proposal(page: Page, served: str) -> None:
    sign_in(page, served, "carla")
    page.get_by_label("Program", exact=True).fill('get_balance(account="carla")')
    page.get_by_role("button", name="Preview").click()

    title = page.locator("#proposal-title")
    expect(title).to_contain_text("Read ")
    expect(title).to_contain_text("done, nothing written")
    expect(title).not_to_contain_text("committed")
    expect(page.locator("#outcome [data-field=status]")).to_have_text("done (a read)")
    expect(page.locator("#outcome [data-field=confirmed-by]")).to_have_text(
        "none needed: it writes nothing"
    )
    expect(page.locator("#outcome")).not_to_contain_text("Confirmed by")
