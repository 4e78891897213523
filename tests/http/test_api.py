"""The HTTP contract, end to end through real HTTP handling (httpx in process)."""
# ruff: noqa: E501 (tables of requests and their answers read best one per line)

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from gateway.bootstrap import Sluice
from tests.conftest import Clock
from tests.http.conftest import auth

PAY_BOB = {"language": "python", "source": 'transfer(payer="alice", payee="bob", amount=10)'}
PROBLEM = "application/problem+json"


def balances(client: TestClient) -> dict[str, str]:
    rows = client.get("/v1/accounts", headers=auth("auditor")).json()["items"]
    return {row["account"]: row["balance"] for row in rows}


def log_end(client: TestClient) -> int:
    return int(client.get("/health", headers=auth("auditor")).json()["log_position"])


def assert_problem(response: Any, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["type"] == f"urn:sluice:problem:{kind}"
    assert body["status"] == status
    assert body["title"] and body["detail"]
    return body


def test_health_and_openapi_need_no_key(client: TestClient) -> None:
    health = client.get("/health")
    spec = client.get("/openapi.json").json()

    assert health.status_code == 200
    assert health.json() == {  # the details are for operators' keys
        "status": "ok",
        "checks": [{"name": "store", "status": "ok"}, {"name": "read_models", "status": "ok"}],
    }
    assert client.get("/health", headers=auth("admin")).json()["store"] == "reachable"
    for path in (
        "/v1/directory",
        "/v1/actions",
        "/v1/use-cases/{name}",
        "/v1/programs",
        "/v1/programs/{run_id}",
        "/v1/programs/{run_id}/confirm",
        "/v1/programs/{run_id}/reject",
        "/v1/accounts",
        "/v1/accounts/{account}",
        "/v1/accounts/{account}/statement",
        "/v1/events",
        "/v1/runs/{run_id}",
    ):
        assert path in spec["paths"], path


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/directory"),
        ("GET", "/v1/actions"),
        ("POST", "/v1/use-cases/transfer"),
        ("POST", "/v1/programs"),
        ("GET", "/v1/programs/x"),
        ("POST", "/v1/programs/x/confirm"),
        ("POST", "/v1/programs/x/reject"),
        ("GET", "/v1/accounts"),
        ("GET", "/v1/accounts/alice"),
        ("GET", "/v1/accounts/alice/statement"),
        ("GET", "/v1/events"),
        ("GET", "/v1/runs/x"),
    ],
)
def test_every_v1_endpoint_needs_a_known_key(client: TestClient, method: str, path: str) -> None:
    missing = client.request(method, path, json={})
    unknown = client.request(method, path, json={}, headers={"Authorization": "Bearer sk-nope"})

    assert_problem(missing, 401, "unauthenticated")
    assert missing.headers["www-authenticate"] == "Bearer"
    assert_problem(unknown, 401, "unauthenticated")


def test_directory_and_sheets_for_the_principal(client: TestClient) -> None:
    directory = client.get("/v1/directory", headers=auth("auditor"))
    sheets = client.get("/v1/actions?name=statement&name=get_balance", headers=auth("auditor"))
    hidden = client.get("/v1/actions?name=transfer", headers=auth("auditor"))
    unknown = client.get("/v1/actions?name=frobnicate", headers=auth("auditor"))

    assert directory.headers["content-type"].startswith("text/plain")
    assert "- get_balance [read]" in directory.text
    assert "transfer" not in directory.text
    assert [s["name"] for s in sheets.json()] == ["statement", "get_balance"]
    assert_problem(hidden, 403, "forbidden")
    assert_problem(unknown, 404, "not-found")


def test_a_direct_call_returns_its_result_and_events(client: TestClient) -> None:
    response = client.post(
        "/v1/use-cases/transfer",
        headers=auth("alice"),
        json={"payer": "alice", "payee": "carla", "amount": "2.50", "memo": "coffee"},
    )

    body = response.json()
    assert response.status_code == 200
    assert (body["status"], body["changed"], body["error"]) == ("committed", 2, None)
    assert body["result"]["payer_balance"] == "97.50"
    assert [e["type"] for e in body["events"]] == ["TransferDebited", "TransferCredited"]
    assert all(isinstance(e["position"], int) for e in body["events"])
    assert balances(client)["carla"] == "2.50"


@pytest.mark.parametrize(
    ("who", "name", "arguments", "status", "kind", "detail"),
    [
        ("alice", "transfer", {"payer": "alice", "payee": "dan", "amount": 1}, 422, "refused", "transfer: no account dan"),
        ("alice", "transfer", {"payer": "bob", "payee": "alice", "amount": 1}, 403, "forbidden", "transfer: payer bob is not an account of principal alice"),
        ("alice", "deposit", {"account": "alice", "amount": 1}, 403, "forbidden", "deposit is not allowed for principal alice"),
        ("alice", "transfer", {"payer": "alice", "payee": "bob", "amount": "ten"}, 400, "bad-request", "transfer: amount: input should be a valid decimal"),
        ("alice", "transfer", {"payer": "alice", "payee": "bob"}, 400, "bad-request", "transfer: missing argument amount"),
        ("alice", "frobnicate", {}, 404, "not-found", "no use case frobnicate"),
        ("teller", "deposit", {"account": "bob", "amount": 20000}, 422, "cap-exceeded", "cap max_amount_per_program"),
    ],
)  # fmt: skip
def test_a_refused_direct_call_is_a_problem_and_changes_nothing(
    client: TestClient,
    who: str,
    name: str,
    arguments: dict[str, Any],
    status: int,
    kind: str,
    detail: str,
) -> None:
    before = balances(client)

    body = assert_problem(
        client.post(f"/v1/use-cases/{name}", headers=auth(who), json=arguments), status, kind
    )

    assert body["detail"].startswith(detail)
    assert balances(client) == before


def test_propose_then_confirm_commits_the_previewed_events(client: TestClient) -> None:
    proposed = client.post("/v1/programs", headers=auth("alice"), json=PAY_BOB)
    proposal = proposed.json()
    read_back = client.get(f"/v1/programs/{proposal['id']}", headers=auth("alice"))

    confirmed = client.post(
        f"/v1/programs/{proposal['id']}/confirm",
        headers=auth("alice"),
        json={"preview_hash": proposal["preview_hash"]},
    )

    assert proposed.status_code == 201
    assert proposal["status"] == "pending"
    assert {"events", "calls", "result"} <= set(proposal["preview"])
    assert read_back.json()["preview_hash"] == proposal["preview_hash"]
    assert confirmed.status_code == 200
    outcome = confirmed.json()
    assert (outcome["status"], outcome["changed"]) == ("committed", 2)
    assert [e["data"] for e in outcome["events"]] == [
        e["data"] for e in proposal["preview"]["events"]
    ]
    assert balances(client)["bob"] == "10.00"


def test_a_stale_confirm_is_409_with_a_fresh_preview(client: TestClient) -> None:
    program = {
        "language": "python",
        "source": 'b = get_balance(account="alice")\nwithdraw(account="alice", amount=b)',
    }
    proposal = client.post("/v1/programs", headers=auth("alice"), json=program).json()
    client.post(
        "/v1/use-cases/deposit", headers=auth("teller"), json={"account": "alice", "amount": 1}
    )
    before = balances(client)

    stale = client.post(
        f"/v1/programs/{proposal['id']}/confirm",
        headers=auth("alice"),
        json={"preview_hash": proposal["preview_hash"]},
    )

    body = assert_problem(stale, 409, "conflict")
    assert balances(client) == before
    fresh = body["proposal"]
    assert fresh["preview"]["events"][0]["data"]["amount"] == "101.00"
    again = client.post(
        f"/v1/programs/{fresh['id']}/confirm",
        headers=auth("alice"),
        json={"preview_hash": fresh["preview_hash"]},
    )
    assert again.status_code == 200


def test_an_expired_proposal_is_410_and_a_rejected_one_too(
    client: TestClient, clock: Clock
) -> None:
    rejected = client.post("/v1/programs", headers=auth("alice"), json=PAY_BOB).json()
    expiring = client.post("/v1/programs", headers=auth("alice"), json=PAY_BOB).json()

    ended = client.post(f"/v1/programs/{rejected['id']}/reject", headers=auth("alice"))
    clock.advance(16 * 60)

    assert ended.json()["status"] == "rejected"
    for proposal in (rejected, expiring):
        assert_problem(
            client.post(
                f"/v1/programs/{proposal['id']}/confirm",
                headers=auth("alice"),
                json={"preview_hash": proposal["preview_hash"]},
            ),
            410,
            "gone",
        )
    assert balances(client)["bob"] == "0.00"


def test_a_bad_program_is_a_problem_with_its_position(client: TestClient) -> None:
    source = 'x = 1\ntransfer(payer="alice", payee="dan", amount=1)'
    body = assert_problem(
        client.post(
            "/v1/programs", headers=auth("alice"), json={"language": "python", "source": source}
        ),
        422,
        "refused",
    )
    syntax = assert_problem(
        client.post(
            "/v1/programs", headers=auth("alice"), json={"language": "python", "source": "x ="}
        ),
        422,
        "invalid-program",
    )
    plan = assert_problem(
        client.post(
            "/v1/programs",
            headers=auth("alice"),
            json={
                "language": "plan",
                "source": '{"steps": [{"tool": "transfer", "args": {"payer": "alice", "payee": "dan", "amount": 1}}]}',
            },
        ),
        422,
        "refused",
    )

    assert (body["line"], body["column"], body["detail"]) == (
        2,
        1,
        "transfer: no account dan (line 2, column 1)",
    )
    assert body["run_id"]
    assert syntax["line"] == 1
    assert plan["step"] == 1


def test_idempotency_replays_the_first_answer_and_writes_nothing_more(client: TestClient) -> None:
    headers = auth("alice") | {"Idempotency-Key": "pay-carla-1"}
    body = {"payer": "alice", "payee": "carla", "amount": 5}

    first = client.post("/v1/use-cases/transfer", headers=headers, json=body)
    end = log_end(client)
    again = client.post("/v1/use-cases/transfer", headers=headers, json=body)
    other = client.post("/v1/use-cases/transfer", headers=headers, json=body | {"amount": 6})

    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert log_end(client) == end
    assert balances(client)["carla"] == "5.00"
    assert_problem(other, 422, "idempotency-key-reused")


def test_idempotency_replays_a_refusal_too(client: TestClient) -> None:
    headers = auth("alice") | {"Idempotency-Key": "to-dan"}
    body = {"payer": "alice", "payee": "dan", "amount": 5}

    first = client.post("/v1/use-cases/transfer", headers=headers, json=body)
    again = client.post("/v1/use-cases/transfer", headers=headers, json=body)

    assert first.status_code == again.status_code == 422
    replayed, answered = again.json(), first.json()
    # The same problem; each names the request it answers.
    assert replayed.pop("request_id") == again.headers["x-request-id"]
    assert answered.pop("request_id") == first.headers["x-request-id"]
    assert again.headers["x-request-id"] != first.headers["x-request-id"]
    assert replayed == answered


def test_idempotent_confirm(client: TestClient) -> None:
    proposal = client.post("/v1/programs", headers=auth("alice"), json=PAY_BOB).json()
    headers = auth("alice") | {"Idempotency-Key": "confirm-1"}
    path = f"/v1/programs/{proposal['id']}/confirm"

    first = client.post(path, headers=headers, json={"preview_hash": proposal["preview_hash"]})
    end = log_end(client)
    again = client.post(path, headers=headers, json={"preview_hash": proposal["preview_hash"]})
    other = client.post(path, headers=headers, json={"preview_hash": "0" * 64})

    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert log_end(client) == end
    assert_problem(other, 422, "idempotency-key-reused")


@pytest.mark.parametrize(
    ("content", "content_type", "status", "kind"),
    [
        (b"{not json", "application/json", 400, "bad-request"),
        (b'{"language": "cobol", "source": "x"}', "application/json", 422, "invalid-request"),
        (b'{"source": "x"}', "application/json", 422, "invalid-request"),
        (b"[1, 2]", "application/json", 422, "invalid-request"),
        (b'{"language": "python", "source": "' + b"x" * 20_000 + b'"}', "application/json", 413, "payload-too-large"),
    ],
)  # fmt: skip
def test_malformed_bodies_get_problems_never_a_500(
    client: TestClient, content: bytes, content_type: str, status: int, kind: str
) -> None:
    response = client.post(
        "/v1/programs", headers=auth("alice") | {"Content-Type": content_type}, content=content
    )

    assert_problem(response, status, kind)


def test_the_read_side(client: TestClient) -> None:
    client.post(
        "/v1/use-cases/transfer",
        headers=auth("alice"),
        json={"payer": "alice", "payee": "bob", "amount": 7},
    )

    mine = client.get("/v1/accounts", headers=auth("alice")).json()["items"]
    bob = client.get("/v1/accounts/bob", headers=auth("teller")).json()
    statement = client.get("/v1/accounts/bob/statement?limit=1", headers=auth("bob")).json()[
        "items"
    ]

    assert [a["account"] for a in mine] == ["alice"]
    assert bob == {
        "account": "bob",
        "owner": "Bob",
        "balance": "7.00",
        "currency": "EUR",
        "status": "open",
    }
    assert [(e["kind"], e["amount"], e["counterparty"]) for e in statement] == [
        ("transfer_in", "7.00", "alice")
    ]
    assert_problem(client.get("/v1/accounts/bob", headers=auth("alice")), 403, "forbidden")
    assert_problem(client.get("/v1/accounts/dan", headers=auth("teller")), 404, "not-found")
    assert_problem(
        client.get("/v1/accounts/dan/statement", headers=auth("teller")), 404, "not-found"
    )
    assert_problem(
        client.get("/v1/accounts/bob/statement?limit=0", headers=auth("bob")),
        422,
        "invalid-request",
    )


def test_events_and_runs_are_for_auditors(client: TestClient) -> None:
    outcome = client.post(
        "/v1/use-cases/deposit", headers=auth("teller"), json={"account": "bob", "amount": 3}
    ).json()

    events = client.get("/v1/events?after=0&limit=1000", headers=auth("auditor")).json()
    page = client.get("/v1/events?after=2&limit=2", headers=auth("auditor")).json()
    run = client.get(f"/v1/runs/{outcome['run_id']}", headers=auth("admin")).json()

    assert [e["position"] for e in events] == sorted({e["position"] for e in events})
    assert [e["position"] for e in page] == [e["position"] for e in events if e["position"] > 2][:2]
    assert events[outcome["events"][0]["position"] - 1]["type"] == "Account.Deposited"
    assert (run["principal"], run["status"], run["kind"]) == ("teller", "committed", "direct")
    assert [h["type"] for h in run["history"]] == ["Proposed", "Confirmed", "Committed"]
    assert_problem(client.get("/v1/events", headers=auth("alice")), 403, "forbidden")
    assert_problem(
        client.get(f"/v1/runs/{outcome['run_id']}", headers=auth("teller")), 403, "forbidden"
    )
    assert_problem(client.get("/v1/runs/nope", headers=auth("auditor")), 404, "not-found")


def test_requests_per_minute_are_capped(sluice: Sluice) -> None:
    from dataclasses import replace

    from gateway.interfaces.http.app import create_app

    sluice.caps = replace(sluice.caps, requests_per_minute=3)
    with TestClient(create_app(sluice)) as limited:
        for _ in range(3):
            assert limited.get("/v1/directory", headers=auth("bob")).status_code == 200
        refused = limited.get("/v1/directory", headers=auth("bob"))
        others = limited.get("/v1/directory", headers=auth("carla"))

    body = assert_problem(refused, 429, "rate-limited")
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert body["retry_after"] == int(refused.headers["retry-after"])
    assert others.status_code == 200


def test_unknown_routes_and_methods_are_problems(client: TestClient) -> None:
    assert_problem(client.get("/v1/nothing-here", headers=auth("alice")), 404, "not-found")
    assert_problem(client.delete("/v1/accounts", headers=auth("alice")), 405, "method-not-allowed")
