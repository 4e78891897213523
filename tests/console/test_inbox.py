"""The inbox in a real browser: what waits for a person, counted in the header, each a link
to its review page; deciding one takes it out of the inbox and the count."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.console.conftest import api, sign_in

pytestmark = pytest.mark.browser

CARLA_AGENT = {"Authorization": "Bearer sk-agent-demo-carla"}


def _agent_proposes(base: str, amount: int, request: str) -> str:
    """carla's agent proposes a payment over the API, as an MCP client's agent would."""
    source = f'transfer(payer="carla", payee="alice", amount={amount})'
    with httpx.Client(base_url=base, headers=CARLA_AGENT, timeout=10) as agent:
        answer = agent.post(
            "/v1/programs", json={"language": "python", "source": source, "request": request}
        )
    assert answer.status_code == 201, answer.text
    proposal: dict[str, str] = answer.json()
    assert proposal["status"] == "pending"
    return proposal["id"]


def test_the_inbox_counts_and_lists_what_waits_and_deciding_one_takes_it_out(
    page: Page, served: str, artefacts: Path
) -> None:
    with api(served, "teller") as teller:
        paid_in = teller.post("/v1/use-cases/deposit", json={"account": "carla", "amount": 20})
        assert paid_in.status_code == 200, paid_in.text
    first = _agent_proposes(served, 3, "Pay alice back for the tickets")
    second = _agent_proposes(served, 4, "Pay alice for the taxi")

    sign_in(page, served, "carla")
    count = page.locator("#inbox-count")
    expect(count).to_have_text("2")
    page.get_by_role("link", name="Inbox").click()
    expect(page.get_by_role("heading", name="Inbox", exact=True)).to_be_visible()
    rows = page.locator("#inbox tbody tr")
    expect(rows).to_have_count(2)
    # Newest first, with the request each answers and who proposed it.
    expect(rows.nth(0)).to_contain_text("Pay alice for the taxi")
    expect(rows.nth(1)).to_contain_text("Pay alice back for the tickets")
    expect(rows.nth(0)).to_contain_text("carla")
    page.screenshot(
        path=artefacts / "inbox.png", clip={"x": 0, "y": 0, "width": 1280, "height": 380}
    )

    rows.nth(1).get_by_role("link", name="Review").click()
    expect(page).to_have_url(f"{served}/#/proposals/{first}")
    page.get_by_role("button", name="Confirm").click()
    expect(page.locator("#outcome [data-field=status]")).to_have_text("committed")

    page.get_by_role("link", name="Inbox").click()
    expect(rows).to_have_count(1)
    expect(rows.nth(0).get_by_role("link", name="Review")).to_have_attribute(
        "href", f"#/proposals/{second}"
    )
    expect(count).to_have_text("1")


def test_an_empty_inbox_says_so_and_shows_no_count(page: Page, served: str) -> None:
    sign_in(page, served, "bob")
    page.get_by_role("link", name="Inbox").click()

    expect(page.get_by_text("Nothing waits for a decision.")).to_be_visible()
    expect(page.locator("#inbox tbody tr")).to_have_count(0)
    expect(page.locator("#inbox-count")).to_be_hidden()
