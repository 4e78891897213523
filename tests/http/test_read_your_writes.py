"""Read your writes: a write's answer carries its log position, and a read given it as
`min_position` waits (a bounded time) until the read models hold it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.http.conftest import auth
from tests.served import serving

SLUICE = str(Path(sys.executable).parent / "sluice")
PAY = {"language": "python", "source": 'transfer(payer="alice", payee="bob", amount=1)'}


def _log_end(client: TestClient | httpx.Client) -> int:
    return int(client.get("/health", headers=auth("auditor")).json()["log_position"])


def test_every_write_answers_the_position_of_its_last_event(client: TestClient) -> None:
    alice = auth("alice")
    direct = client.post(
        "/v1/use-cases/deposit", json={"account": "bob", "amount": 2}, headers=auth("teller")
    ).json()
    assert direct["position"] == _log_end(client)
    assert direct["position"] >= max(e["position"] for e in direct["events"])

    proposed = client.post("/v1/programs", json=PAY, headers=alice).json()
    assert proposed["status"] == "pending" and proposed["position"] == _log_end(client)
    confirmed = client.post(
        f"/v1/programs/{proposed['id']}/confirm",
        json={"preview_hash": proposed["preview_hash"]},
        headers=alice,
    ).json()
    assert confirmed["position"] == _log_end(client)

    again = client.post("/v1/programs", json=PAY, headers=alice).json()
    rejected = client.post(f"/v1/programs/{again['id']}/reject", headers=alice).json()
    assert rejected["position"] == _log_end(client)

    read_only = client.post(
        "/v1/programs",
        json={"language": "python", "source": 'get_balance(account="alice")'},
        headers=alice,
    ).json()
    assert read_only["status"] == "committed" and read_only["position"] == _log_end(client)

    # Reads are not writes: no position.
    answered = client.post("/v1/use-cases/get_balance", json={"account": "alice"}, headers=alice)
    assert answered.json()["position"] is None


def test_an_answer_kept_for_an_idempotency_key_is_replayed_as_kept_without_a_position(
    client: TestClient,
) -> None:
    keyed = auth("teller") | {"Idempotency-Key": "deposit-1"}
    body = {"account": "bob", "amount": 3}
    first = client.post("/v1/use-cases/deposit", json=body, headers=keyed).json()
    client.post("/v1/use-cases/deposit", json={"account": "bob", "amount": 1}, headers=keyed)
    replay = client.post("/v1/use-cases/deposit", json=body, headers=keyed).json()

    assert first["position"] is None and first["status"] == "committed"
    assert replay == first  # the first answer, as it was kept
    read = client.get("/v1/accounts/bob", params={"consistent": "true"}, headers=auth("bob"))
    assert read.json()["balance"] == "3.00"


def test_a_position_beyond_the_end_of_the_log_is_a_clear_422(client: TestClient) -> None:
    beyond = _log_end(client) + 1000
    for path in ("/v1/accounts", "/v1/accounts/alice", "/v1/accounts/alice/statement"):
        answer = client.get(path, params={"min_position": beyond}, headers=auth("alice"))
        assert answer.status_code == 422, path
        assert answer.json()["detail"].startswith(
            f"min_position: {beyond} is beyond the end of the log ({beyond - 1000})"
        )
    negative = client.get("/v1/accounts", params={"min_position": -1}, headers=auth("alice"))
    assert negative.status_code == 422
    assert "query.min_position" in negative.json()["detail"]


def _env(database: Path, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    return env | {"SLUICE_DATABASE_URL": f"sqlite:///{database}"} | more


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """A served gateway with its projector: reads may lag the log a little."""
    caps = {"SLUICE_CAP_PROGRAMS_PER_MINUTE": "1000", "SLUICE_CAP_REQUESTS_PER_MINUTE": "10000"}
    with serving([SLUICE, "serve", "--demo"], _env(tmp_path / "rw.db", **caps)) as base:
        yield base


def test_a_served_gateway_shows_each_write_to_a_read_given_its_position(served: str) -> None:
    teller = httpx.Client(base_url=served, headers=auth("teller"), timeout=30)
    alice = httpx.Client(base_url=served, headers=auth("alice"), timeout=30)
    with teller, alice:
        for n in range(1, 16):
            paid = teller.post("/v1/use-cases/deposit", json={"account": "carla", "amount": 1})
            at = paid.json()["position"]
            account = teller.get("/v1/accounts/carla", params={"min_position": at})
            statement = teller.get("/v1/accounts/carla/statement", params={"min_position": at})
            accounts = teller.get("/v1/accounts", params={"min_position": at, "limit": 200})
            listed: dict[str, Any] = {r["account"]: r for r in accounts.json()["items"]}
            assert account.json()["balance"] == f"{n}.00"
            assert statement.json()["items"][0]["balance"] == f"{n}.00"
            assert listed["carla"]["balance"] == f"{n}.00"

            proposed = alice.post("/v1/programs", json=PAY).json()
            inbox = alice.get("/v1/programs", params={"min_position": proposed["position"]})
            assert inbox.json()["items"][0]["id"] == proposed["id"]
            alice.post(f"/v1/programs/{proposed['id']}/reject")


def test_a_read_whose_position_is_not_reached_in_time_says_which_and_changes_nothing(
    tmp_path: Path,
) -> None:
    # No projector here and none elsewhere: the read models stay where they are.
    env = _env(tmp_path / "stuck.db", SLUICE_READ_WAIT_SECONDS="0.3")
    with (
        serving([SLUICE, "serve", "--demo", "--no-projector"], env) as base,
        httpx.Client(base_url=base, headers=auth("teller"), timeout=30) as teller,
    ):
        paid = teller.post("/v1/use-cases/deposit", json={"account": "carla", "amount": 5})
        at = paid.json()["position"]
        waited = teller.get("/v1/accounts/carla", params={"min_position": at})
        consistent = teller.get("/v1/accounts/carla", params={"consistent": "true"})

    assert waited.status_code == 503
    assert waited.headers["Retry-After"] == "1"
    body = waited.json()
    assert body["type"] == "urn:sluice:problem:unavailable"
    assert body["min_position"] == at
    assert body["detail"].startswith(
        f"min_position: the read models did not reach position {at} within 0.3 s"
    )
    assert consistent.json()["balance"] == "5.00"  # the write is there


def test_a_malformed_read_wait_stops_the_server_naming_it(tmp_path: Path) -> None:
    done = subprocess.run(
        [SLUICE, "serve", "--demo", "--port", "1"],
        env=_env(tmp_path / "bad.db", SLUICE_READ_WAIT_SECONDS="forever"),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 2
    assert "SLUICE_READ_WAIT_SECONDS='forever'" in done.stderr
