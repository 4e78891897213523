"""The audit trail in a real browser: an account's balance chart and timeline, each movement
linked to the run that made it, and a run's whole story."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.console.conftest import api, sign_in

pytestmark = pytest.mark.browser


def commit(base: str, who: str, source: str) -> str:
    """Propose and confirm through the API; the run's id."""
    with api(base, who) as client:
        proposal = client.post("/v1/programs", json={"language": "python", "source": source})
        assert proposal.status_code == 201, proposal.text
        body: dict[str, Any] = proposal.json()
        outcome = client.post(
            f"/v1/programs/{body['id']}/confirm", json={"preview_hash": body["preview_hash"]}
        )
        assert outcome.json()["status"] == "committed", outcome.text
        run_id: str = body["id"]
        return run_id


def statement(base: str, who: str, account: str) -> list[dict[str, Any]]:
    with api(base, who) as client:
        answer = client.get(
            f"/v1/accounts/{account}/statement", params={"limit": 100, "consistent": "true"}
        )
        answer.raise_for_status()
        entries: list[dict[str, Any]] = answer.json()["items"]
        return entries


def test_the_audit_page_charts_every_movement_and_links_each_to_its_run(
    page: Page, served: str, artefacts: Path
) -> None:
    commit(served, "alice", 'transfer(payer="alice", payee="carla", amount=2, memo="coffee")')
    run_id = commit(served, "alice", 'transfer(payer="alice", payee="carla", amount=1, memo="tip")')
    entries = statement(served, "alice", "alice")
    sign_in(page, served, "alice")

    page.get_by_role("link", name="Audit").click()

    points = page.locator("#chart svg circle.point")
    expect(points).to_have_count(len(entries))
    expect(page.locator("#timeline tbody tr")).to_have_count(len(entries))
    expect(page.locator("#chart figcaption")).to_contain_text(
        f"over its last {len(entries)} movements: from 0.00 to {entries[0]['balance']}"
    )
    newest = page.locator("#timeline tbody tr").first
    expect(newest).to_contain_text("tip")
    expect(newest).to_contain_text(entries[0]["balance"])
    page.screenshot(path=artefacts / "audit.png", full_page=True)

    newest.get_by_role("link").click()

    expect(page).to_have_url(f"{served}/#/runs/{run_id}")
    story = page.locator("#story")
    expect(story).to_contain_text("Confirmed by")
    expect(story.locator("dd").nth(0)).to_have_text("alice")
    expect(page.locator("#run-events tbody tr")).to_have_count(2)
    expect(page.locator("#run-program")).to_contain_text('amount=1, memo="tip"')


def test_an_auditor_reads_any_account_and_each_run_s_history(page: Page, served: str) -> None:
    run_id = commit(served, "bob", 'get_balance(account="bob")')  # a read: committed at once
    entries = statement(served, "auditor", "carla")
    sign_in(page, served, "auditor")

    page.goto(f"{served}/#/audit/carla")

    expect(page.locator("#chart svg circle.point")).to_have_count(len(entries))
    page.goto(f"{served}/#/runs/{run_id}")
    expect(page.locator("#history-panel")).to_be_visible()
    expect(page.locator("#history li")).to_have_count(3)  # proposed, confirmed, committed
    expect(page.locator("#history")).to_contain_text("Committed")


def test_a_customer_is_told_plainly_that_another_s_run_is_not_hers(page: Page, served: str) -> None:
    run_id = commit(served, "bob", 'get_balance(account="bob")')
    sign_in(page, served, "alice")

    page.goto(f"{served}/#/runs/{run_id}")

    expect(page.locator("#run-problem")).to_have_text(f"proposal {run_id} belongs to principal bob")
