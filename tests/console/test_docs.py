"""/docs and /redoc render in a real Chromium whose every request to another host is refused:
Swagger UI and ReDoc come from the server itself, and the pages name no outside host."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Page, Request, Route, expect

pytestmark = pytest.mark.browser

# An address in a page: src=, href=, url(...), or a bare //host reference.
OUTSIDE = re.compile(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//""")


def closed_network(page: Page, base: str) -> list[str]:
    """Refuse every request to a host other than the server's; the list of those tried."""
    ours = urlsplit(base).netloc
    tried: list[str] = []

    def only_ours(route: Route, request: Request) -> None:
        if urlsplit(request.url).netloc == ours or request.url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            tried.append(request.url)
            route.abort("internetdisconnected")

    page.route("**/*", only_ours)
    return tried


def test_the_api_docs_render_offline_with_every_operation(
    page: Page, served: str, artefacts: Path
) -> None:
    tried = closed_network(page, served)
    page.goto(f"{served}/docs")

    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Sluice")
    confirm = page.locator(".opblock-summary-path", has_text="/v1/programs/{run_id}/confirm")
    expect(confirm.first).to_be_visible()
    assert page.locator(".opblock").count() > 15
    page.screenshot(path=artefacts / "docs.png")
    assert tried == []


def test_a_refusal_is_shown_in_the_docs_as_a_problem_with_its_example(
    page: Page, served: str
) -> None:
    tried = closed_network(page, served)
    page.goto(f"{served}/docs")
    accounts = page.locator("#operations-accounts-get_account")
    accounts.locator(".opblock-summary").click()
    unknown = accounts.locator("tr.response[data-code='401']")
    expect(unknown).to_contain_text("application/problem+json")
    expect(unknown).to_contain_text("urn:sluice:problem:unauthenticated")
    assert tried == []


def test_redoc_renders_offline(page: Page, served: str) -> None:
    tried = closed_network(page, served)
    page.goto(f"{served}/redoc")
    expect(page.get_by_role("heading", name=re.compile("^Sluice"))).to_be_visible()
    assert tried == []


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_a_docs_page_names_no_outside_host_and_forbids_loading_from_one(
    served: str, path: str
) -> None:
    page = httpx.get(f"{served}{path}", timeout=10)
    assert page.status_code == 200
    assert OUTSIDE.search(page.text) is None, page.text
    assert "http://" not in page.text and "https://" not in page.text
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self' 'unsafe-inline'" in policy
    assert "https:" not in policy and "*" not in policy


def test_an_unknown_docs_file_is_a_problem_naming_it(served: str) -> None:
    answer = httpx.get(f"{served}/docs-assets/secrets.txt", timeout=10)
    assert answer.status_code == 404
    assert answer.json()["detail"] == "the API docs have no file secrets.txt"
