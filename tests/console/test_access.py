"""The console by keyboard alone, on narrow screens (a phone, or 200% and 400% zoom), and its
sign-in, kept for the browser session where no script reads it."""

from __future__ import annotations

from decimal import Decimal

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from tests.console.conftest import KEYS, api, balance, propose, sign_in

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


def test_the_sign_in_lasts_the_browser_session_in_every_tab_and_no_script_reads_the_key(
    page: Page, served: str, browser: BrowserContext
) -> None:
    page.goto(f"{served}/")
    page.get_by_label("API key").fill("sk-not-a-key")
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#sign-in-error")).to_have_text("This API key is unknown or revoked.")
    assert browser.cookies() == []

    sign_in(page, served, "bob")
    expect(page.locator("#who")).to_have_text("bob (customer, accounts bob)")
    # The key is nowhere a script of the page can read it.
    kept = page.evaluate(
        "JSON.stringify([document.cookie, Object.entries(sessionStorage),"
        " Object.entries(localStorage)])"
    )
    assert KEYS["bob"] not in kept and "sk-" not in kept
    [cookie] = browser.cookies()
    assert (cookie["httpOnly"], cookie["sameSite"], cookie["path"]) == (True, "Strict", "/v1/")
    assert cookie["expires"] == -1  # a session cookie: gone when the browser closes
    assert cookie["secure"] is False  # served over plain http here; Secure over https
    with api(served, "bob") as client:  # a proposal whose review link bob opens anew
        proposal = client.post(
            "/v1/programs",
            json={"language": "python", "source": 'transfer(payer="bob", payee="alice", amount=1)'},
        )
    link = f"{served}/#/proposals/{proposal.json()['id']}"

    other = browser.new_page()
    other.goto(link)
    expect(other.get_by_role("heading", name="Your decision")).to_be_visible()
    expect(other.locator("#who")).to_have_text("bob (customer, accounts bob)")

    other.get_by_role("button", name="Sign out").click()
    expect(other.get_by_label("API key")).to_be_focused()
    assert browser.cookies() == []
    page.reload()  # signed out in every tab
    expect(page.get_by_label("API key")).to_be_visible()
    other.close()
    with api(served, "bob") as client:  # the gateway is shared: leave bob's inbox empty
        rejected = client.post(f"/v1/programs/{proposal.json()['id']}/reject")
        assert rejected.status_code == 200, rejected.text
