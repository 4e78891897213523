"""The shop's inbox in a real browser: a payment its teller's agent proposed reads as the
money that moves, the customer paying the shop (the console renders the inbox's `moves`)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.console.conftest import api, serve, sign_in

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
