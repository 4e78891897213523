"""One real `sluice serve` process, reached over a socket by a real HTTP client."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.served import serving

SLUICE = str(Path(sys.executable).parent / "sluice")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    env = {**os.environ, "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'served.db'}"}
    with serving([SLUICE, "serve", "--demo"], env) as base:
        yield base


def test_a_served_gateway_proposes_confirms_and_reports(served: str) -> None:
    alice = {"Authorization": "Bearer sk-demo-alice"}
    with httpx.Client(base_url=served, headers=alice, timeout=10) as client:
        proposal = client.post(
            "/v1/programs",
            json={"language": "python", "source": 'transfer(payer="alice", payee="bob", amount=4)'},
        ).json()
        outcome = client.post(
            f"/v1/programs/{proposal['id']}/confirm",
            json={"preview_hash": proposal["preview_hash"]},
        ).json()
        account = client.get("/v1/accounts/alice", params={"consistent": "true"}).json()

    assert outcome["status"] == "committed"
    assert account["balance"] == "96.00"


TELLER = {"Authorization": "Bearer sk-demo-teller"}
PAY_DAN = {"payer": "alice", "payee": "dan", "amount": 1}
PLAN_PAY_DAN = (
    '{"steps": [{"tool": "transfer", "args": {"payer": "alice", "payee": "dan", "amount": 1}}]}'
)


def test_a_served_gateway_names_the_refusal_on_every_path_that_runs_a_use_case(
    served: str,
) -> None:
    alice = {"Authorization": "Bearer sk-demo-alice"}
    with httpx.Client(base_url=served, headers=alice, timeout=10) as client:
        answers = {
            "direct call": client.post("/v1/use-cases/transfer", json=PAY_DAN),
            # Answered from the read models, as a teller (a customer may not ask about dan).
            "direct read": client.post(
                "/v1/use-cases/get_balance", json={"account": "dan"}, headers=TELLER
            ),
            "program": client.post(
                "/v1/programs",
                json={
                    "language": "python",
                    "source": 'transfer(payer="alice", payee="dan", amount=1)',
                },
            ),
            "plan step": client.post(
                "/v1/programs", json={"language": "plan", "source": PLAN_PAY_DAN}
            ),
        }
        balance = client.get("/v1/accounts/alice", params={"consistent": "true"}).json()

    seen = {
        path: (r.status_code, r.json()["type"], r.json().get("refusal"), r.json()["detail"])
        for path, r in answers.items()
    }
    refused, missing = "urn:sluice:problem:refused", "account-not-found"
    assert seen == {
        "direct call": (422, refused, missing, "transfer: no account dan"),
        "direct read": (422, refused, missing, "get_balance: no account dan"),
        "program": (422, refused, missing, "transfer: no account dan (line 1, column 1)"),
        "plan step": (422, refused, missing, "transfer: no account dan (step 1)"),
    }
    assert balance["balance"] == "100.00"
