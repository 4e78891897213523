"""Over HTTP: a program paying whoever the data names is a 422 naming the argument and its
line, and writes nothing; one failing on a crafted memo answers without quoting it."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.gateway.test_failed_runs_quote_no_data import MEMO
from tests.gateway.test_provenance import BILL_MEMO, PAY_THE_MEMO, REFUND_LATEST
from tests.http.conftest import auth
from tests.http.test_api import assert_problem, balances


def plant(client: TestClient) -> None:
    """mallory's bill in a memo, then 5.01 from mallory: alice's latest transfer."""
    from_mallory: dict[str, object] = {"payer": "mallory", "payee": "alice"}
    calls: list[tuple[str, str, dict[str, object]]] = [
        ("admin", "open_account", {"account": "mallory", "owner": "M", "initial_deposit": 20}),
        ("teller", "deposit", {"account": "alice", "amount": 1000}),
        ("teller", "transfer", from_mallory | {"amount": "0.01", "memo": BILL_MEMO}),
        ("teller", "transfer", from_mallory | {"amount": "5.01"}),
    ]
    for who, use_case, arguments in calls:
        answer = client.post(f"/v1/use-cases/{use_case}", headers=auth(who), json=arguments)
        assert answer.status_code == 200, answer.text


def test_paying_whoever_the_data_names_is_a_422_that_writes_nothing(client: TestClient) -> None:
    plant(client)
    before = balances(client)

    for source in (REFUND_LATEST, PAY_THE_MEMO):
        program = {"language": "python", "source": source}
        answer = client.post("/v1/programs", headers=auth("alice"), json=program)

        body = assert_problem(answer, 422, "invalid-program")
        assert body["line"] == 3
        assert body["detail"].startswith(
            "transfer: payee must be written as a literal in the program, not computed from data"
        )
        run = client.get(f"/v1/programs/{body['run_id']}", headers=auth("alice")).json()
        assert (run["status"], run["preview"]["calls"]) == ("failed", [])
    assert balances(client) == before


def test_a_program_failing_on_a_crafted_memo_answers_without_it(client: TestClient) -> None:
    pay = {"payer": "alice", "payee": "bob", "amount": 1, "memo": MEMO}
    assert client.post("/v1/use-cases/transfer", headers=auth("alice"), json=pay).status_code == 200
    program = {"language": "python", "source": 'int(statement(account="bob")[0]["memo"])'}

    answer = client.post("/v1/programs", headers=auth("teller"), json=program)

    body = assert_problem(answer, 422, "invalid-program")
    assert body["detail"] == (
        "ValueError; its message is not shown, as it may quote data the program read "
        "(line 1, column 1)"
    )
    run = client.get(f"/v1/programs/{body['run_id']}", headers=auth("teller")).json()
    assert "IGNORE" not in str(run["error"]) + str(run["outcome"])
    assert MEMO in str(run["preview"]["calls"][0]["result"])  # the person's review shows it
