"""The console by keyboard alone, and on narrow screens (a phone, or 200% and 400% zoom)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import Page, expect

from tests.console.conftest import KEYS, balance, propose, sign_in

pytestmark = pytest.mark.browser

MAX_TABS = 30


def focused(page: Page) -> str:
    """The focused element, as `tag#id` or `tag:text`."""
    described: str = page.evaluate(
        "() => { const e = document.activeElement;"
        " return e.tagName.toLowerCase() + (e.id ? '#' + e.id : ':' + e.textContent.trim()); }"
    )
    return described


def tab_to(page: Page, target: str, *, back: bool = False) -> None:
    """Press Tab (or Shift+Tab) until `target` (as `focused` writes it) has the focus."""
    seen = []
    for _ in range(MAX_TABS):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        seen.append(focused(page))
        if seen[-1] == target:
            return
    raise AssertionError(f"Tab never reached {target}; it went through {seen}")


def outline(page: Page) -> str:
    style: str = page.evaluate(
        "() => { const s = getComputedStyle(document.activeElement);"
        " return s.outlineStyle + ' ' + s.outlineWidth; }"
    )
    return style


def test_a_person_using_only_the_keyboard_signs_in_previews_and_confirms(
    page: Page, served: str
) -> None:
    before = Decimal(balance(served, "alice"))
    page.goto(f"{served}/")
    expect(page.get_by_label("API key")).to_be_focused()  # the first thing to do has the focus
    page.keyboard.type(KEYS["alice"])
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Ask", exact=True)).to_be_focused()

    tab_to(page, "textarea#program-source")
    assert outline(page).startswith("solid")  # focus is visible
    page.keyboard.type('transfer(payer="alice", payee="bob", amount=2)')
    tab_to(page, "button:Preview")
    assert outline(page) == "solid 3px"
    page.keyboard.press("Enter")

    expect(page.get_by_role("heading", name="Your decision")).to_be_visible()
    tab_to(page, "button#confirm")
    assert outline(page) == "solid 3px"
    page.keyboard.press("Enter")

    expect(page.locator("#outcome [data-field=status]")).to_have_text("committed")
    expect(page.locator("#outcome-title")).to_be_focused()  # the outcome is read out next
    assert balance(served, "alice") == f"{before - 2:.2f}"

    # The directory's use cases open their sheets from the keyboard too.
    tab_to(page, "a:Ask", back=True)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Ask", exact=True)).to_be_focused()
    tab_to(page, "button:transfer")
    page.keyboard.press("Enter")
    expect(page.locator("#sheet")).to_contain_text("The account that pays.")
    expect(page.locator("button[data-use-case=transfer]")).to_have_attribute(
        "aria-expanded", "true"
    )


WIDTHS = (320, 390, 640)  # 400% and 200% zoom of a 1280 px window, and a phone between


def no_sideways_scroll(page: Page, view: str) -> None:
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        page.wait_for_timeout(50)  # one layout pass
        scroll_width = page.evaluate("document.scrollingElement.scrollWidth")
        window_width = page.evaluate("window.innerWidth")
        assert scroll_width <= window_width, f"{view} at {width} px scrolls sideways"


def test_every_view_fits_a_phone_width_window(page: Page, served: str) -> None:
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto(f"{served}/")
    no_sideways_scroll(page, "sign-in")
    sign_in(page, served, "alice")
    page.locator("button[data-use-case=transfer]").click()
    expect(page.locator("#sheet")).to_contain_text("The account that pays.")
    no_sideways_scroll(page, "ask")

    propose(page, 'transfer(payer="alice", payee="bob", amount=1, memo="' + "x" * 120 + '")')
    no_sideways_scroll(page, "review")
    page.get_by_role("button", name="Reject").click()
    expect(page.locator("#outcome [data-field=status]")).to_have_text("rejected")
    no_sideways_scroll(page, "outcome")

    page.get_by_role("link", name="Its whole story").click()
    expect(page.locator("#story")).to_contain_text("rejected")
    no_sideways_scroll(page, "run")

    page.get_by_role("link", name="Audit").click()
    expect(page.locator("#chart svg")).to_be_visible()
    no_sideways_scroll(page, "audit")


def test_the_key_is_kept_for_this_tab_only_and_forgotten_on_sign_out(
    page: Page, served: str
) -> None:
    page.goto(f"{served}/")
    page.get_by_label("API key").fill("sk-not-a-key")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#sign-in-error")).to_have_text("This API key is unknown or revoked.")
    assert page.evaluate("sessionStorage.length") == 0

    sign_in(page, served, "bob")
    expect(page.locator("#who")).to_have_text("bob (customer, accounts bob)")
    assert page.evaluate("sessionStorage.getItem('sluice.api-key')") == KEYS["bob"]
    assert page.evaluate("localStorage.length + document.cookie.length") == 0
    page.reload()
    expect(page.locator("#who")).to_have_text("bob (customer, accounts bob)")  # same tab

    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_label("API key")).to_be_focused()
    assert page.evaluate("sessionStorage.length") == 0
