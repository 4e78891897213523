"""The shop in a real browser: a payment its teller's agent proposed reads in the inbox as the
money that moves, the customer paying the shop (the console renders the inbox's `moves`); an
order is reviewed, confirmed, and its product audited as the shop's read models hold it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.console.conftest import api, propose, serve, sign_in

pytestmark = pytest.mark.browser

TELLERS_AGENT = {"Authorization": "Bearer sk-agent-demo-teller"}


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve(tmp_path_factory.mktemp("console-shop") / "shop.db", {"SLUICE_DOMAIN": "shop"})


def test_the_shops_inbox_shows_the_customer_paying_the_shop(page: Page, shop: str) -> None:
    with api(shop, "alice") as alice:
        placed = alice.post(
            "/v1/use-cases/place_order",
            json={"order": "o-web", "customer": "alice", "sku": "mug", "quantity": 2},
        )
        assert placed.status_code == 200, placed.text
    with httpx.Client(base_url=shop, headers=TELLERS_AGENT, timeout=10) as agent:
        proposed = agent.post(
            "/v1/programs",
            json={
                "language": "python",
                "source": 'pay_order(order="o-web", amount=24)',
                "request": "Alice paid for her mugs",
            },
        )
        assert proposed.status_code == 201, proposed.text

    sign_in(page, shop, "teller")
    page.get_by_role("link", name="Inbox").click()
    rows = page.locator("#inbox tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.nth(0)).to_contain_text("alice pays shop 24.00 EUR")
    expect(rows.nth(0)).to_contain_text("Alice paid for her mugs")

    # Its review states the money in the shop's parties' names.
    rows.nth(0).get_by_role("link").click()
    expect(page.locator("#effects")).to_contain_text("alice pays shop 24.00 EUR")


def test_a_shop_order_is_reviewed_confirmed_and_audited_in_the_console(
    page: Page, shop: str, artefacts: Path
) -> None:
    sign_in(page, shop, "alice")
    propose(
        page,
        'place_order(order="o-console", customer="alice", sku="tea-green", quantity=3)\n'
        'get_product(sku="tea-green")["stock"]',
        request="Three green teas",
    )

    # The preview, in the shop's terms: the events the program would append with their data,
    # the money it moves (none: an order is paid later), before any write.
    expect(page.locator("#who")).to_have_text("alice (customer, customers alice)")
    events = page.locator("#events tbody tr")
    expect(events).to_have_count(2)
    expect(events.nth(0)).to_contain_text("Placed")
    expect(events.nth(1)).to_contain_text("Reserved")
    expect(events.nth(1)).to_contain_text("quantity: 3")
    expect(page.locator("#effects")).to_contain_text("No money moves (2 events)")
    expect(page.locator("#effects")).not_to_contain_text("not yours to see")
    page.screenshot(path=artefacts / "shop-review.png", full_page=True)
    page.get_by_role("button", name="Confirm").click()
    expect(page.locator("#outcome [data-field=status]")).to_have_text("committed")

    # The audit page lists the shop's products, as its read models hold them now.
    page.get_by_role("link", name="Audit").click()
    expect(page.get_by_role("navigation", name="Products")).to_contain_text("tea-green")
    page.get_by_role("link", name="tea-green", exact=True).click()
    expect(page.locator("#audit-title")).to_have_text("Audit of tea-green")
    stock = page.locator("#timeline tbody tr").filter(
        has=page.get_by_role("cell", name="stock", exact=True)
    )
    with api(shop, "alice") as alice:
        now = alice.get("/v1/products/tea-green", params={"consistent": "true"}).json()["stock"]
    expect(stock).to_contain_text(str(now))
    expect(page.locator("#chart-panel")).to_be_hidden()
    page.screenshot(path=artefacts / "shop-audit.png", full_page=True)
