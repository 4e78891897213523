"""A proposal whose accounts moved while it waited: GET says which moved, before anyone
decides; `POST .../refresh` previews it again (nothing committed); `sluice confirm` says it
is stale and shows the fresh preview before it asks, or with --yes commits nothing unseen."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from tests.e2e.demo_stores import DemoStores
from tests.served import serving

SLUICE = str(Path(sys.executable).parent / "sluice")
AGENT = {"Authorization": "Bearer sk-agent-demo-alice"}
ALICE = {"Authorization": "Bearer sk-demo-alice"}
TELLER = {"Authorization": "Bearer sk-demo-teller"}


@pytest.fixture
def served(tmp_path: Path, demo_stores: DemoStores) -> Iterator[tuple[dict[str, str], str]]:
    env = {**os.environ, "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'stale.db'}",
           "COLUMNS": "200"}  # fmt: skip
    demo_stores.copy(env)
    with serving([SLUICE, "serve"], env) as base:
        yield env, base


def balance(base: str) -> Decimal:
    answer = httpx.get(f"{base}/v1/accounts/alice?consistent=true", headers=ALICE)
    return Decimal(answer.json()["balance"])


def propose_then_deposit(base: str) -> str:
    """The agent proposes to pay 5, or 6 when alice has more than 1 above now (no float
    literal then sits right at her balance); then money comes in."""
    source = (
        f'amount = 6 if get_balance(account="alice") > {balance(base)} + 1 else 5\n'
        'transfer(payer="alice", payee="bob", amount=amount)'
    )
    proposed = httpx.post(f"{base}/v1/programs", headers=AGENT,
                          json={"language": "python", "source": source})  # fmt: skip
    assert proposed.status_code == 201, proposed.text
    run_id: str = proposed.json()["id"]
    current = httpx.get(f"{base}/v1/programs/{run_id}", headers=ALICE).json()
    assert current["moved_since_preview"] == []
    deposit = httpx.post(f"{base}/v1/use-cases/deposit", headers=TELLER,
                         json={"account": "alice", "amount": 10})  # fmt: skip
    assert deposit.status_code == 200, deposit.text
    return run_id


def test_get_names_the_accounts_moved_and_refresh_previews_anew_committing_nothing(
    served: tuple[dict[str, str], str],
) -> None:
    _, base = served
    run_id = propose_then_deposit(base)
    before = balance(base)

    stale = httpx.get(f"{base}/v1/programs/{run_id}", headers=ALICE).json()
    by_agent = httpx.post(f"{base}/v1/programs/{run_id}/refresh", headers=AGENT)
    fresh = httpx.post(f"{base}/v1/programs/{run_id}/refresh", headers=ALICE)
    again = httpx.post(f"{base}/v1/programs/{run_id}/refresh", headers=ALICE)

    assert stale["moved_since_preview"] == ["alice"]
    assert by_agent.status_code == 403
    assert fresh.status_code == 200, fresh.text
    assert fresh.json()["moved_since_preview"] == []
    assert fresh.json()["preview_hash"] != stale["preview_hash"]
    assert fresh.json()["preview"]["events"][0]["data"]["amount"] == "6.00"
    assert again.json()["preview_hash"] == fresh.json()["preview_hash"]  # nothing moved since
    assert balance(base) == before  # nothing committed
    confirmed = httpx.post(f"{base}/v1/programs/{run_id}/confirm", headers=ALICE,
                           json={"preview_hash": fresh.json()["preview_hash"]})  # fmt: skip
    assert confirmed.status_code == 200, confirmed.text
    assert balance(base) == before - 6
    ended = httpx.post(f"{base}/v1/programs/{run_id}/refresh", headers=ALICE)
    assert ended.status_code == 410


def test_confirm_says_the_preview_is_stale_and_shows_the_fresh_one_before_asking(
    served: tuple[dict[str, str], str],
) -> None:
    env, base = served
    run_id = propose_then_deposit(base)
    before = balance(base)

    done = subprocess.run([SLUICE, "confirm", run_id[:8], "--as", "alice"], env=env, input="y\n",
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip

    assert done.returncode == 0, done.stdout + done.stderr
    stale_at = done.stdout.index("Stale: alice moved since this preview")
    fresh_at = done.stdout.index("A fresh preview, with today's numbers:")
    assert stale_at < fresh_at < done.stdout.index("6.00")
    assert balance(base) == before - 6


def test_confirm_yes_on_a_stale_preview_commits_nothing_unseen(
    served: tuple[dict[str, str], str],
) -> None:
    env, base = served
    run_id = propose_then_deposit(base)
    before = balance(base)

    done = subprocess.run([SLUICE, "confirm", run_id, "--as", "alice", "--yes"], env=env,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip

    assert done.returncode == 1
    assert "Stale: alice moved since this preview" in done.stdout
    assert "changed since the preview" in done.stdout
    assert balance(base) == before
