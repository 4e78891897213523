"""Use cases called directly, with the one callback port the seed describes."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

from application import executor
from application.bank.accounts import CloseAccount, OpenAccount
from application.bank.movements import Deposit, Transfer, Withdraw
from application.bank.queries import GetBalance, ListAccounts, Statement
from application.ledger import Ledger
from application.ports import CallbackPort
from application.unit_of_work import UnitOfWork
from application.use_case import UseCase
from application.validation import describe
from domain.account import Account
from domain.errors import AccountNotFoundError, DomainError
from tests.conftest import balances, store_state
from tests.direct import call_now


def execute(ledger: Ledger, use_case: UseCase[Any]) -> tuple[Any, str | None, UnitOfWork]:
    """Run on a unit of work through a port that keeps the outcome; nothing is committed."""
    kept: dict[str, Any] = {"result": None, "error": None}
    uow = UnitOfWork(ledger)
    use_case.execute(
        uow,
        CallbackPort(
            on_success=lambda result: kept.update(result=result),
            on_failure=lambda refusal: kept.update(error=str(refusal)),
        ),
    )
    return kept["result"], kept["error"], uow


def _unexpected(refusal: DomainError) -> None:
    pytest.fail(f"refused: {refusal}")


def test_a_transfer_reports_success_through_the_port_and_commits_once(demo_ledger: Ledger) -> None:
    outcome = call_now(demo_ledger, Transfer(payer="alice", payee="bob", amount=Decimal(30)))

    assert outcome.error is None
    assert outcome.result.payer_balance == Decimal("70.00")
    assert [e["type"] for e in outcome.events] == ["TransferDebited", "TransferCredited"]
    assert balances(demo_ledger) == {
        "alice": Decimal("70.00"),
        "bob": Decimal("30.00"),
        "carla": Decimal("0.00"),
    }


@pytest.mark.parametrize(
    ("use_case", "refusal"),
    [
        (Transfer(payer="alice", payee="dan", amount=Decimal(1)), "no account dan"),
        (Transfer(payer="dan", payee="alice", amount=Decimal(1)), "no account dan"),
        (Transfer(payer="alice", payee="bob", amount=Decimal(140)), "alice has only 100.00"),
        (
            Transfer(payer="alice", payee="alice", amount=Decimal(1)),
            "payer and payee are both alice",
        ),
        (Withdraw(account="bob", amount=Decimal(1)), "bob has only 0.00"),
        (Deposit(account="dan", amount=Decimal(1)), "no account dan"),
        (OpenAccount(account="bob", owner="Robert"), "account bob already exists"),
        (
            CloseAccount(account="alice"),
            "account alice still holds 100.00; only an empty account closes",
        ),
        (GetBalance(account="dan"), "no account dan"),
        (Statement(account="dan"), "no account dan"),
    ],
)
def test_refusals_go_to_the_failure_port_and_change_nothing(
    demo_ledger: Ledger, use_case: UseCase[Any], refusal: str
) -> None:
    before = store_state(demo_ledger)

    result, error, _ = execute(demo_ledger, use_case)
    outcome = call_now(demo_ledger, use_case)

    assert (result, error) == (None, refusal)
    assert outcome.error == f"{use_case.name}: {refusal}"
    assert store_state(demo_ledger) == before


def test_a_refusal_keeps_its_class_through_the_port_and_the_executor(
    demo_ledger: Ledger,
) -> None:
    use_case = Transfer(payer="alice", payee="dan", amount=Decimal(1))
    reported: list[DomainError] = []

    use_case.execute(UnitOfWork(demo_ledger), CallbackPort(lambda _: None, reported.append))
    with pytest.raises(AccountNotFoundError) as raised:
        executor.execute(use_case, UnitOfWork(demo_ledger))

    assert [type(r) for r in reported] == [AccountNotFoundError]
    assert raised.value.account == "dan"


def test_a_closed_account_refuses_transfers_to_it(demo_ledger: Ledger) -> None:
    call_now(demo_ledger, CloseAccount(account="carla"))

    outcome = call_now(demo_ledger, Transfer(payer="alice", payee="carla", amount=Decimal(5)))

    assert outcome.error == "transfer: account carla is closed"
    assert balances(demo_ledger)["alice"] == Decimal("100.00")


def test_reads_inside_a_unit_of_work_see_its_own_writes(demo_ledger: Ledger) -> None:
    uow = UnitOfWork(demo_ledger)
    sink = CallbackPort[Any](on_success=lambda _: None, on_failure=_unexpected)
    OpenAccount(account="dan", owner="Dan", initial_deposit=Decimal(5)).execute(uow, sink)
    Transfer(payer="alice", payee="dan", amount=Decimal(10)).execute(uow, sink)
    seen: list[Any] = []
    keep = CallbackPort[Any](on_success=seen.append, on_failure=_unexpected)

    GetBalance(account="dan").execute(uow, keep)
    ListAccounts(owner="Dan").execute(uow, keep)
    Statement(account="dan").execute(uow, keep)

    balance, dans_accounts, entries = seen
    assert balance == Decimal("15.00")
    assert [v.account for v in dans_accounts] == ["dan"]
    assert [(e.kind, e.amount, e.balance) for e in entries] == [
        ("transfer_in", Decimal("10.00"), Decimal("15.00")),
        ("deposit", Decimal("5.00"), Decimal("5.00")),
        ("opened", Decimal("0.00"), Decimal("0.00")),
    ]
    # Nothing was committed: the store does not know dan.
    assert "dan" not in demo_ledger.keys_in_log(Account)


def test_a_unit_of_work_that_is_not_committed_writes_nothing(demo_ledger: Ledger) -> None:
    before = store_state(demo_ledger)

    _, error, uow = execute(demo_ledger, Transfer(payer="alice", payee="bob", amount=Decimal(1)))
    del uow

    assert error is None
    assert store_state(demo_ledger) == before


def test_statement_lists_the_newest_movements_first_with_running_balances(
    demo_ledger: Ledger,
) -> None:
    call_now(demo_ledger, Transfer(payer="alice", payee="bob", amount=Decimal(30), memo="rent"))
    call_now(demo_ledger, Withdraw(account="bob", amount=Decimal("0.50"), memo="fee"))

    entries, error, _ = execute(demo_ledger, Statement(account="bob", limit=2))

    assert error is None
    assert [(e.kind, e.amount, e.balance, e.counterparty, e.memo) for e in entries] == [
        ("withdrawal", Decimal("-0.50"), Decimal("29.50"), None, "fee"),
        ("transfer_in", Decimal("30.00"), Decimal("30.00"), "alice", "rent"),
    ]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"payer": "alice", "payee": "bob", "amount": "ten"},
            "amount: input should be a valid decimal (got 'ten')",
        ),
        ({"payer": "alice", "payee": "bob", "amount": -5}, "amount must be positive, got -5"),
        ({"payer": "alice", "payee": "bob", "amount": 0}, "amount must be positive, got 0"),
        (
            {"payer": "alice", "payee": "bob", "amount": 0.1 + 0.2},
            "amount 0.30000000000000004 has more than 2 decimal places",
        ),
        ({"payer": "alice", "payee": "bob"}, "missing argument amount"),
        ({"payer": "alice", "payee": "bob", "amount": 1, "tip": 2}, "unexpected argument tip"),
        (
            {"payer": "Alice Smith", "payee": "bob", "amount": 1},
            "'Alice Smith' is not an account id",
        ),
        ({"payer": "alice", "payee": "bob", "amount": 1, "memo": "x" * 141}, "memo: string should"),
    ],
)
def test_bad_arguments_are_refused_naming_the_argument_and_the_reason(
    arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValidationError) as refused:
        Transfer.model_validate(arguments)

    assert message in describe(refused.value)
