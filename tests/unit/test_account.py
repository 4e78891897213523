"""The Account aggregate as stories: given events, when a command, then events or a refusal."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest

from domain.account import Account, account_id
from domain.errors import (
    AccountClosedError,
    AccountNotEmptyError,
    BalanceLimitError,
    InsufficientFundsError,
    InvalidAmountError,
    SameAccountError,
)
from domain.money import MAX_AMOUNT, MAX_BALANCE


def opened(name: str = "alice", balance: str = "0") -> Account:
    account = Account(account=name, owner=name.title())
    if Decimal(balance) > 0:
        account.deposit(Decimal(balance), "start")
    account.collect_events()
    return account


def test_opening_names_the_account_its_owner_and_the_euro() -> None:
    account = Account(account="alice", owner="Alice")

    [event] = account.collect_events()
    assert isinstance(event, Account.Opened)
    assert (event.account, event.owner, event.currency) == ("alice", "Alice", "EUR")
    assert account.id == account_id("alice")
    assert account.balance == Decimal("0.00")


def test_deposit_then_withdraw_moves_the_balance_to_the_cent() -> None:
    account = opened()

    account.deposit(Decimal("10.5"), "pocket money")
    account.withdraw(Decimal("0.25"), "sweets")

    deposited, withdrawn = account.collect_events()
    assert isinstance(deposited, Account.Deposited)
    assert deposited.amount == Decimal("10.50")
    assert deposited.memo == "pocket money"
    assert isinstance(withdrawn, Account.Withdrawn)
    assert account.balance == Decimal("10.25")


def test_a_withdrawal_below_zero_is_refused_and_raises_no_event() -> None:
    account = opened(balance="60")

    with pytest.raises(InsufficientFundsError, match=r"^alice has only 60\.00$"):
        account.withdraw(Decimal("60.01"))

    assert account.collect_events() == []
    assert account.balance == Decimal("60.00")


def test_a_transfer_debits_one_side_and_credits_the_other_with_counterparty_and_memo() -> None:
    alice, bob = opened("alice", "100"), opened("bob")

    alice.debit_transfer(Decimal("30"), "bob", "rent")
    bob.credit_transfer(Decimal("30"), "alice", "rent")

    [debited] = alice.collect_events()
    [credited] = bob.collect_events()
    assert isinstance(debited, Account.TransferDebited)
    assert (debited.amount, debited.counterparty, debited.memo) == (Decimal("30.00"), "bob", "rent")
    assert isinstance(credited, Account.TransferCredited)
    assert (credited.counterparty, credited.memo) == ("alice", "rent")
    assert (alice.balance, bob.balance) == (Decimal("70.00"), Decimal("30.00"))


def test_a_transfer_to_oneself_is_refused() -> None:
    alice = opened("alice", "10")

    with pytest.raises(SameAccountError, match="payer and payee are both alice"):
        alice.debit_transfer(Decimal("1"), "alice")


@pytest.mark.parametrize(
    ("amount", "reason"),
    [
        ("0", "amount must be positive, got 0"),
        ("-5", "amount must be positive, got -5"),
        ("1.005", "amount 1.005 has more than 2 decimal places"),
        ("NaN", "amount NaN is not a finite number"),
    ],
)
def test_amounts_must_be_positive_with_at_most_two_decimals(amount: str, reason: str) -> None:
    account = opened(balance="100")

    with pytest.raises(InvalidAmountError, match=reason):
        account.deposit(Decimal(amount))

    assert account.collect_events() == []


def test_trailing_zeros_beyond_the_cent_are_fine() -> None:
    account = opened()

    account.deposit(Decimal("1.500"))

    assert account.balance == Decimal("1.50")


def test_closing_needs_a_zero_balance() -> None:
    account = opened(balance="10")

    with pytest.raises(AccountNotEmptyError, match=r"account alice still holds 10\.00"):
        account.close()

    account.withdraw(Decimal("10"))
    account.close()
    assert account.closed


def test_a_closed_account_takes_no_more_operations() -> None:
    account = opened()
    account.close()
    account.collect_events()

    operations: tuple[Callable[[], object], ...] = (
        lambda: account.deposit(Decimal("1")),
        lambda: account.withdraw(Decimal("1")),
        lambda: account.debit_transfer(Decimal("1"), "bob"),
        lambda: account.credit_transfer(Decimal("1"), "bob"),
        account.close,
    )
    for operation in operations:
        with pytest.raises(AccountClosedError, match="account alice is closed"):
            operation()
    assert account.collect_events() == []


def test_money_coming_in_may_not_pass_the_maximum_balance() -> None:
    full = opened("bob")
    for _ in range(1000):
        full.deposit(MAX_AMOUNT, "")
    full.collect_events()
    payer = opened("alice", "1")

    with pytest.raises(BalanceLimitError, match=r"bob would hold 1000000000000000\.01, over the"):
        full.deposit(Decimal("0.01"), "")
    with pytest.raises(BalanceLimitError):
        full.credit_transfer(Decimal("0.01"), "alice")
    payer.debit_transfer(Decimal("1"), "carla")  # money may always leave
    assert full.balance == MAX_BALANCE
    assert full.collect_events() == []


def test_the_bounds_fit_every_store_column_and_decimal_precision() -> None:
    cents = MAX_BALANCE * 100
    assert cents < 2**63  # SQLite keeps integer cents
    assert MAX_BALANCE.adjusted() + 1 <= 18  # Postgres numeric(20, 2): 18 digits before the point
    # Sums of a balance and an amount stay exact in Decimal's 28 digits.
    assert len((MAX_BALANCE + MAX_AMOUNT).as_tuple().digits) < 28
    with pytest.raises(InvalidAmountError, match=r"over the maximum of 1000000000000\.00"):
        Account(account="x", owner="X").deposit(MAX_AMOUNT + Decimal("0.01"), "")
