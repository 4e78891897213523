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
    env = {**os.environ, "SLUICE_DATABASE_URL": f"sqlite://{tmp_path / 'served.db'}"}
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
