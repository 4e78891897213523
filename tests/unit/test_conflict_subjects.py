"""A commit refused because the store moved on names what moved, in the bank's words (what
the bank's kinds declare), and writes nothing."""

from __future__ import annotations

from decimal import Decimal

import pytest

from application.bank.accounts import OpenAccount
from application.bank.movements import Deposit
from application.bank.queries import GetBalance, ListAccounts
from application.executor import execute
from application.ledger import Ledger
from application.unit_of_work import ConflictError, UnitOfWork
from tests.conftest import balances
from tests.direct import call_now


def test_an_account_opened_since_a_listing_refuses_the_commit(demo_ledger: Ledger) -> None:
    uow = UnitOfWork(demo_ledger)
    execute(ListAccounts(), uow)
    execute(Deposit(account="alice", amount=Decimal(1)), uow)
    assert call_now(demo_ledger, OpenAccount(account="dan", owner="Dan")).ok
    before = balances(demo_ledger)

    with pytest.raises(ConflictError) as refused:
        uow.commit()

    assert str(refused.value) == (
        "conflict: the set of accounts changed since it was read; nothing was written"
    )
    assert balances(demo_ledger) == before


def test_an_account_only_read_that_moved_refuses_the_commit(demo_ledger: Ledger) -> None:
    uow = UnitOfWork(demo_ledger)
    execute(GetBalance(account="bob"), uow)
    execute(Deposit(account="alice", amount=Decimal(1)), uow)
    assert call_now(demo_ledger, Deposit(account="bob", amount=Decimal(2))).ok
    before = balances(demo_ledger)

    with pytest.raises(ConflictError) as refused:
        uow.commit()

    assert str(refused.value) == (
        "conflict: account bob changed since it was read; nothing was written"
    )
    assert balances(demo_ledger) == before


def test_a_listing_sees_the_accounts_opened_in_the_same_work_once(demo_ledger: Ledger) -> None:
    uow = UnitOfWork(demo_ledger)
    execute(OpenAccount(account="dan", owner="Dan"), uow)

    listed = execute(ListAccounts(), uow).value

    assert [view.account for view in listed] == ["alice", "bob", "carla", "dan"]
