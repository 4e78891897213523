"""Over HTTP too, agents propose and people decide: every route by which a key with scope
agent could commit, confirm or reject answers 403 and changes nothing."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.http.test_api import assert_problem, balances, log_end

AGENT = {"Authorization": "Bearer sk-agent-demo-alice"}
PERSON = {"Authorization": "Bearer sk-demo-alice"}
TRANSFER = 'transfer(payer="alice", payee="bob", amount=5, memo="agent")\n'


def _propose(client: TestClient) -> dict[str, str]:
    answer = client.post("/v1/programs", json={"language": "python", "source": TRANSFER},
                         headers=AGENT)  # fmt: skip
    assert answer.status_code == 201, answer.text
    assert answer.json()["status"] == "pending"
    return answer.json()  # type: ignore[no-any-return]


def test_an_agent_key_cannot_confirm_reject_or_write_directly(client: TestClient) -> None:
    proposal = _propose(client)
    before, end = balances(client), log_end(client)

    pay = {"preview_hash": proposal["preview_hash"]}
    confirm = client.post(f"/v1/programs/{proposal['id']}/confirm", json=pay, headers=AGENT)
    reject = client.post(f"/v1/programs/{proposal['id']}/reject", headers=AGENT)
    direct = client.post("/v1/use-cases/transfer", headers=AGENT,
                         json={"payer": "alice", "payee": "bob", "amount": 5})  # fmt: skip

    for refused in (confirm, reject, direct):
        problem = assert_problem(refused, 403, "forbidden")
        assert "scope agent may" in problem["detail"]
    assert "never confirm" in confirm.json()["detail"]
    assert (balances(client), log_end(client)) == (before, end)
    assert client.get(f"/v1/programs/{proposal['id']}", headers=AGENT).json()["status"] == "pending"


def test_an_agent_key_reads_and_the_person_confirms(client: TestClient) -> None:
    proposal = _propose(client)
    read = client.post("/v1/use-cases/get_balance", json={"account": "alice"}, headers=AGENT)
    assert read.status_code == 200 and read.json()["result"] == "100.00"

    pay = {"preview_hash": proposal["preview_hash"]}
    confirmed = client.post(f"/v1/programs/{proposal['id']}/confirm", json=pay, headers=PERSON)
    assert confirmed.status_code == 200 and confirmed.json()["status"] == "committed"
    assert balances(client)["alice"] == "95.00"


def test_an_idempotent_replay_does_not_lend_an_agent_the_persons_answer(
    client: TestClient,
) -> None:
    proposal = _propose(client)
    body = {"preview_hash": proposal["preview_hash"]}
    once = {"Idempotency-Key": "confirm-1"}
    first = client.post(f"/v1/programs/{proposal['id']}/confirm", json=body,
                        headers=PERSON | once)  # fmt: skip
    assert first.status_code == 200

    replayed = client.post(f"/v1/programs/{proposal['id']}/confirm", json=body,
                           headers=AGENT | once)  # fmt: skip
    assert_problem(replayed, 403, "forbidden")


def test_the_console_knows_the_keys_scope(client: TestClient) -> None:
    assert client.get("/v1/console/me", headers=AGENT).json()["scope"] == "agent"
    assert client.get("/v1/console/me", headers=PERSON).json()["scope"] == "human"
