"""What a newcomer meets over HTTP: a wrong preview hash is said to be one (nothing moved),
a proposal is found by the 8 characters a table shows, the inbox and a proposal tell the
money they move and who proposed them, a read is never a confirmed proposal, and the
console's sign-in page learns where keys come from."""

from __future__ import annotations

from collections import Counter
from typing import Any

from fastapi.testclient import TestClient

from tests.http.conftest import auth
from tests.http.test_api import assert_problem

PAY_BOB = {"language": "python", "source": 'transfer(payer="alice", payee="bob", amount=10)'}
AGENT = {"Authorization": "Bearer sk-agent-demo-alice"}


def propose(client: TestClient, headers: dict[str, str], **more: Any) -> dict[str, Any]:
    answer = client.post("/v1/programs", headers=headers, json=PAY_BOB | more)
    assert answer.status_code == 201, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_a_wrong_preview_hash_is_its_own_conflict_and_says_nothing_moved(
    client: TestClient,
) -> None:
    proposal = propose(client, auth("alice"))

    wrong = client.post(
        f"/v1/programs/{proposal['id']}/confirm",
        headers=auth("alice"),
        json={"preview_hash": "0" * 64},
    )

    body = assert_problem(wrong, 409, "wrong-preview-hash")
    assert body["title"] == "That hash is not this proposal's current preview; nothing was written"
    assert "moved" not in body["title"]
    assert "is not the current preview of proposal" in body["detail"]
    assert body["proposal"]["preview_hash"] == proposal["preview_hash"]  # the one to confirm


def test_a_proposal_is_found_by_the_start_of_its_id(client: TestClient) -> None:
    proposal = propose(client, auth("alice"))
    short = proposal["id"][:8]

    found = client.get(f"/v1/programs/{short}", headers=auth("alice"))
    as_run = client.get(f"/v1/runs/{short}", headers=auth("auditor"))
    not_hers = client.get(f"/v1/programs/{short}", headers=auth("bob"))
    not_hex = client.get("/v1/programs/run-one", headers=auth("alice"))

    assert found.status_code == 200, found.text
    assert found.json()["id"] == proposal["id"]
    assert as_run.status_code == 200 and as_run.json()["id"] == proposal["id"]
    # bob's search covers his own runs only: alice's is no run of his.
    assert_problem(not_hers, 404, "not-found")
    assert "is hexadecimal" in assert_problem(not_hex, 404, "not-found")["detail"]


def test_a_start_shared_by_two_runs_is_refused_as_ambiguous(client: TestClient) -> None:
    ids = [propose(client, auth("alice"))["id"] for _ in range(17)]  # 16 hex digits
    shared, _ = Counter(i[0] for i in ids).most_common(1)[0]

    answer = client.get(f"/v1/programs/{shared}", headers=auth("alice"))

    assert "is ambiguous" in assert_problem(answer, 422, "invalid-request")["detail"]


def test_the_inbox_and_a_proposal_tell_the_money_and_who_proposed_it(client: TestClient) -> None:
    by_agent = propose(client, AGENT, request="Pay bob for the concert")
    by_her = propose(client, auth("alice"))
    money = [{"payer": "alice", "payee": "bob", "amount": "10.00", "currency": "EUR"}]

    inbox = client.get("/v1/programs", headers=auth("alice")).json()["items"]
    shown = client.get(f"/v1/programs/{by_agent['id']}", headers=auth("alice")).json()

    items = {item["id"]: item for item in inbox}
    agents, hers = items[by_agent["id"]], items[by_her["id"]]
    assert agents["moves"] == hers["moves"] == shown["moves"] == money
    assert agents["proposed_by"].startswith("alice's agent (key ")
    assert agents["proposed_by"].endswith(", over http)")
    assert hers["proposed_by"].startswith("alice (key ")
    assert agents["request_by"] == shown["request_by"] == "alice's agent"
    assert agents["status"] == "pending" and not agents["reads_only"]


def test_a_read_is_marked_a_read_not_a_confirmed_proposal(client: TestClient) -> None:
    read = client.post(
        "/v1/programs",
        headers=auth("alice"),
        json={"language": "python", "source": 'get_balance(account="alice")'},
    ).json()

    listed = client.get("/v1/programs?status=", headers=auth("alice")).json()["items"]

    assert read["status"] == "committed" and read["reads_only"] is True
    assert read["moves"] == []
    assert [item["reads_only"] for item in listed if item["id"] == read["id"]] == [True]


def test_the_sign_in_page_learns_where_keys_come_from_and_no_demo_keys_outside_the_demo(
    client: TestClient,
) -> None:
    answer = client.get("/v1/console/sign-in")  # no key: the page is not signed in yet

    assert answer.status_code == 200
    body = answer.json()
    assert body == {
        "demo": False,
        "demo_keys": [],
        "where_keys_come_from": body["where_keys_come_from"],
    }
    assert "sluice principal key NAME" in body["where_keys_come_from"]
