"""The inbox: GET /v1/programs lists the proposals that wait for a person (one's own, or
everyone's for auditors and admins), newest first, a page at a time."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.conftest import Clock
from tests.http.conftest import auth

AGENT = {"Authorization": "Bearer sk-agent-demo-alice"}


def _pay(amount: int, payer: str = "alice") -> dict[str, str]:
    return {
        "language": "python",
        "source": f'transfer(payer="{payer}", payee="carla", amount={amount})',
        "request": f"pay carla {amount}",
    }


def _propose(client: TestClient, headers: dict[str, str], amount: int, payer: str = "alice") -> Any:
    answer = client.post("/v1/programs", json=_pay(amount, payer), headers=headers)
    assert answer.status_code == 201, answer.text
    return answer.json()


def _inbox(client: TestClient, who: str | dict[str, str], **params: Any) -> Any:
    headers = auth(who) if isinstance(who, str) else who
    answer = client.get("/v1/programs", params={"consistent": "true"} | params, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_inbox_lists_ones_own_pending_proposals_newest_first(client: TestClient) -> None:
    mine = _propose(client, auth("alice"), 1)
    by_my_agent = _propose(client, AGENT, 2)
    _propose(client, auth("teller"), 3)  # someone else's

    inbox = _inbox(client, "alice")

    assert [item["id"] for item in inbox["items"]] == [by_my_agent["id"], mine["id"]]
    assert inbox["next_cursor"] is None
    first = inbox["items"][0]
    assert (first["status"], first["principal"], first["request"]) == (
        "pending", "alice", "pay carla 2",
    )  # fmt: skip
    assert first["events"] == 2 and first["expires_at"] == by_my_agent["expires_at"]
    assert first["source"] == _pay(2)["source"]
    # An agent's key reads the same inbox: its principal's.
    assert [item["id"] for item in _inbox(client, AGENT)["items"]] == [
        by_my_agent["id"],
        mine["id"],
    ]


def test_auditors_and_admins_see_everyones_and_a_teller_its_own(client: TestClient) -> None:
    alices = _propose(client, auth("alice"), 1)
    tellers = _propose(client, auth("teller"), 3)

    for staff in ("auditor", "admin"):
        assert [i["id"] for i in _inbox(client, staff)["items"]] == [tellers["id"], alices["id"]]
    assert [i["id"] for i in _inbox(client, "teller")["items"]] == [tellers["id"]]
    assert _inbox(client, "bob")["items"] == []


def test_a_decided_or_expired_proposal_leaves_the_inbox(client: TestClient, clock: Clock) -> None:
    confirmed = _propose(client, auth("alice"), 1)
    rejected = _propose(client, auth("alice"), 2)
    waiting = _propose(client, auth("alice"), 3)
    client.post(
        f"/v1/programs/{confirmed['id']}/confirm",
        json={"preview_hash": confirmed["preview_hash"]},
        headers=auth("alice"),
    )
    client.post(f"/v1/programs/{rejected['id']}/reject", headers=auth("alice"))

    assert [i["id"] for i in _inbox(client, "alice")["items"]] == [waiting["id"]]
    assert [i["id"] for i in _inbox(client, "alice", status="committed")["items"]] == [
        confirmed["id"]
    ]
    assert [i["id"] for i in _inbox(client, "alice", status="rejected")["items"]] == [
        rejected["id"]
    ]
    every = [i["id"] for i in _inbox(client, "alice", status="")["items"]]
    assert every[:3] == [waiting["id"], rejected["id"], confirmed["id"]]

    clock.advance(24 * 3600)  # past every proposal's time
    assert _inbox(client, "alice")["items"] == []


def test_the_inbox_comes_a_page_at_a_time(client: TestClient) -> None:
    made = [_propose(client, auth("alice"), n)["id"] for n in range(1, 6)]
    seen: list[list[str]] = []
    cursor = None
    while True:
        page = _inbox(client, "alice", limit=2, **({"cursor": cursor} if cursor else {}))
        seen.append([item["id"] for item in page["items"]])
        cursor = page["next_cursor"]
        if cursor is None:
            break

    assert seen == [made[4:2:-1], made[2:0:-1], made[:1]]


def test_a_cursor_of_one_status_is_refused_for_another(client: TestClient) -> None:
    for n in range(1, 3):
        _propose(client, auth("alice"), n)
    pending = _inbox(client, "alice", limit=1)

    answer = client.get(
        "/v1/programs",
        params={"status": "committed", "cursor": pending["next_cursor"]},
        headers=auth("alice"),
    )

    assert answer.status_code == 422
    assert (
        "cursor: was given for another list, not for programs:committed" in answer.json()["detail"]
    )


def test_an_unknown_status_is_a_clear_422(client: TestClient) -> None:
    answer = client.get("/v1/programs", params={"status": "waiting"}, headers=auth("alice"))

    assert answer.status_code == 422
    assert answer.json()["detail"] == (
        "status: 'waiting' is not one of pending, committed, failed, rejected, expired"
    )


def test_the_inbox_needs_a_key(client: TestClient) -> None:
    answer = client.get("/v1/programs")

    assert answer.status_code == 401
    assert answer.json()["type"] == "urn:sluice:problem:unauthenticated"
