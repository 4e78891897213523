"""The Account aggregate: a euro balance that never goes below zero."""

from __future__ import annotations

from decimal import Decimal
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain.errors import (
    AccountClosedError,
    AccountNotEmptyError,
    BalanceLimitError,
    InsufficientFundsError,
    SameAccountError,
)
from domain.money import MAX_BALANCE, ZERO, amount, fmt

CURRENCY = "EUR"


def account_id(account: str) -> UUID:
    """The aggregate id of an account name: stable, so a name finds its account."""
    return uuid5(NAMESPACE_URL, f"sluice:account:{account}")


class Account(Aggregate):
    """A bank account named by a short id such as `alice`."""

    class Opened(Aggregate.Created):
        account: str
        owner: str
        currency: str

    class Deposited(Aggregate.Event):
        amount: Decimal
        memo: str

    class Withdrawn(Aggregate.Event):
        amount: Decimal
        memo: str

    class TransferDebited(Aggregate.Event):
        amount: Decimal
        counterparty: str
        memo: str

    class TransferCredited(Aggregate.Event):
        amount: Decimal
        counterparty: str
        memo: str

    class Closed(Aggregate.Event):
        pass

    @staticmethod
    def create_id(account: str, owner: str, currency: str = CURRENCY) -> UUID:
        return account_id(account)

    @event(Opened)
    def __init__(self, account: str, owner: str, currency: str = CURRENCY) -> None:
        self.account = account
        self.owner = owner
        self.currency = currency
        self.balance = ZERO
        self.closed = False

    def deposit(self, value: Decimal, memo: str = "") -> None:
        self.check_open()
        checked = amount(value)
        self.check_room(checked)
        self._deposited(checked, memo)

    def withdraw(self, value: Decimal, memo: str = "") -> None:
        self.check_open()
        checked = amount(value)
        self.check_funds(checked)
        self._withdrawn(checked, memo)

    def debit_transfer(self, value: Decimal, payee: str, memo: str = "") -> None:
        self.check_open()
        if payee == self.account:
            raise SameAccountError(payee)
        checked = amount(value)
        self.check_funds(checked)
        self._transfer_debited(checked, payee, memo)

    def credit_transfer(self, value: Decimal, payer: str, memo: str = "") -> None:
        self.check_open()
        if payer == self.account:
            raise SameAccountError(payer)
        checked = amount(value)
        self.check_room(checked)
        self._transfer_credited(checked, payer, memo)

    def close(self) -> None:
        self.check_open()
        if self.balance != ZERO:
            raise AccountNotEmptyError(self.account, fmt(self.balance))
        self._closed()

    def check_open(self) -> None:
        if self.closed:
            raise AccountClosedError(self.account)

    def check_funds(self, value: Decimal) -> None:
        if self.balance < value:
            raise InsufficientFundsError(self.account, fmt(self.balance))

    def check_room(self, value: Decimal) -> None:
        """Money coming in may not bring the balance past MAX_BALANCE (every store holds it)."""
        if self.balance + value > MAX_BALANCE:
            raise BalanceLimitError(self.account, fmt(self.balance + value), fmt(MAX_BALANCE))

    @event(Deposited)
    def _deposited(self, amount: Decimal, memo: str) -> None:
        self.balance += amount

    @event(Withdrawn)
    def _withdrawn(self, amount: Decimal, memo: str) -> None:
        self.balance -= amount

    @event(TransferDebited)
    def _transfer_debited(self, amount: Decimal, counterparty: str, memo: str) -> None:
        self.balance -= amount

    @event(TransferCredited)
    def _transfer_credited(self, amount: Decimal, counterparty: str, memo: str) -> None:
        self.balance += amount

    @event(Closed)
    def _closed(self) -> None:
        self.closed = True
