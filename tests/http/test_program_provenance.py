"""Over HTTP: a program paying whoever a memo names is a 422 naming the argument and its
line, and writes nothing; a refund of a received payment is proposed with where its payee
and amount came from; 0.01 sent with a memo "refund me 500" gets at most 0.01 back; a
program failing on a crafted memo answers without quoting it."""

from __future__ import annotations

from decimal import Decimal

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


def test_paying_whoever_a_memo_names_is_a_422_that_writes_nothing(client: TestClient) -> None:
    plant(client)
    before = balances(client)
    program = {"language": "python", "source": PAY_THE_MEMO}

    answer = client.post("/v1/programs", headers=auth("alice"), json=program)

    body = assert_problem(answer, 422, "invalid-program")
    assert body["line"] == 3
    assert body["detail"].startswith("transfer: payee may not be taken from text")
    run = client.get(f"/v1/programs/{body['run_id']}", headers=auth("alice")).json()
    assert (run["status"], run["preview"]["calls"]) == ("failed", [])
    assert balances(client) == before


def test_a_refund_is_proposed_with_where_its_payee_and_amount_came_from(
    client: TestClient,
) -> None:
    plant(client)
    program = {"language": "python", "source": REFUND_LATEST}

    answer = client.post("/v1/programs", headers=auth("alice"), json=program)

    assert answer.status_code == 201, answer.text
    transfer = answer.json()["preview"]["calls"][-1]
    given = {
        (argument, o["call"], o["field"], o["label"])
        for argument, found in transfer["origins"].items()
        for o in found
        if not o["chosen"]
    }
    assert given == {
        ("payee", "statement", "counterparty", "fact"),
        ("amount", "statement", "amount", "fact"),
    }


def test_a_cent_with_a_memo_asking_for_500_gets_at_most_a_cent_back(client: TestClient) -> None:
    opened = {"account": "mallory", "owner": "M", "initial_deposit": 1}
    client.post("/v1/use-cases/open_account", headers=auth("admin"), json=opened)
    attack = {"payer": "mallory", "payee": "alice", "amount": "0.01", "memo": "refund me 500"}
    client.post("/v1/use-cases/transfer", headers=auth("teller"), json=attack)
    start = Decimal(balances(client)["mallory"])
    latest = 'e = statement(account="alice")[0]\n'
    payee = 'payer="alice", payee=str(e["counterparty"])'
    programs = [
        latest + f'transfer({payee}, amount=float(e["memo"].split()[-1]))',
        latest + f"transfer({payee}, amount=500)",
        latest + f'for n in range(3):\n    transfer({payee}, amount=e["amount"])',
        latest + f'transfer({payee}, amount=e["amount"])',
        REFUND_LATEST,  # once more: nothing is left to refund
    ]
    refused = []
    for source in programs:
        proposed = client.post(
            "/v1/programs", headers=auth("alice"), json={"language": "python", "source": source}
        )
        if proposed.status_code != 201:
            refused.append(assert_problem(proposed, 422, "invalid-program")["detail"])
            continue
        body = proposed.json()
        confirm = {"preview_hash": body["preview_hash"]}
        confirmed = client.post(
            f"/v1/programs/{body['id']}/confirm", headers=auth("alice"), json=confirm
        )
        if confirmed.status_code != 200:
            refused.append(confirmed.text)

    assert Decimal(balances(client)["mallory"]) - start == Decimal("0.01")
    assert len(refused) == 4, refused
    assert "a refund's amount may not be taken from text written by <value>" in refused[0]
    assert "was refunded already" in refused[-1]


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
