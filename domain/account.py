"""The Account aggregate: a euro balance that never goes below zero.

A memo is written by the account's own side unless its event names another writer
(`memo_by`): text a program copied from what another party wrote keeps that party's name.
The account also keeps, per other account, what it paid (its payees), what it received and
what it paid back as refunds: the facts a payment computed from data is checked against.
"""

from __future__ import annotations

from decimal import Decimal
from typing import ClassVar
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

from domain.errors import (
    AccountClosedError,
    AccountExistsError,
    AccountNotEmptyError,
    AccountNotFoundError,
    BalanceLimitError,
    DomainError,
    InsufficientFundsError,
    RefundLimitError,
    SameAccountError,
)
from domain.money import MAX_BALANCE, ZERO, amount, fmt
from domain.registry import AccountRegistry

CURRENCY = "EUR"


def account_id(account: str) -> UUID:
    """The aggregate id of an account name: stable, so a name finds its account."""
    return uuid5(NAMESPACE_URL, f"sluice:account:{account}")


def _memo_by(state: dict[str, object]) -> None:
    """Before memo_by, every memo was its default writer's."""
    state["memo_by"] = None


class Account(Aggregate):
    """A bank account named by a short id such as `alice`."""

    # How the application keeps accounts (application/kinds.py): found by name; listed by
    # the registry of accounts (whose version guards a listing), or, in a log older than
    # it, by the `account` of their Opened events; a process's writes to one take turns,
    # from the copy it cached; snapshotted, however long their history.
    noun: ClassVar[str] = "account"
    listed_by: ClassVar[type[Aggregate]] = AccountRegistry
    key_field: ClassVar[str] = "account"
    takes_turns: ClassVar[bool] = True
    cached: ClassVar[bool] = True
    snapshotted: ClassVar[bool] = True

    @staticmethod
    def id_for(key: str) -> UUID:
        return account_id(key)

    @staticmethod
    def not_found(key: str) -> DomainError:
        return AccountNotFoundError(key)

    @staticmethod
    def already_exists(key: str) -> DomainError:
        return AccountExistsError(key)

    # v2: the per-account totals paid, received and refunded. A v1 snapshot starts them
    # empty: fewer payments computed from data are allowed until they fill again.
    class_version = 2

    @staticmethod
    def upcast_v1_v2(state: dict[str, object]) -> None:
        state["paid"], state["received"], state["refunded"] = {}, {}, {}

    class Opened(Aggregate.Created):
        account: str
        owner: str
        currency: str

    class Deposited(Aggregate.Event):
        class_version = 2
        upcast_v1_v2 = staticmethod(_memo_by)
        amount: Decimal
        memo: str
        memo_by: str | None = None

    class Withdrawn(Aggregate.Event):
        class_version = 2
        upcast_v1_v2 = staticmethod(_memo_by)
        amount: Decimal
        memo: str
        memo_by: str | None = None

    class TransferDebited(Aggregate.Event):
        class_version = 2

        @staticmethod
        def upcast_v1_v2(state: dict[str, object]) -> None:
            state["memo_by"], state["refund"] = None, False

        amount: Decimal
        counterparty: str
        memo: str
        memo_by: str | None = None
        refund: bool = False

    class TransferCredited(Aggregate.Event):
        class_version = 2
        upcast_v1_v2 = staticmethod(_memo_by)
        amount: Decimal
        counterparty: str
        memo: str
        memo_by: str | None = None

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
        # By other account: paid to it (refunds apart), received from it, refunded to it.
        self.paid: dict[str, Decimal] = {}
        self.received: dict[str, Decimal] = {}
        self.refunded: dict[str, Decimal] = {}

    def deposit(self, value: Decimal, memo: str = "", memo_by: str | None = None) -> None:
        self.check_open()
        checked = amount(value)
        self.check_room(checked)
        self._deposited(checked, memo, memo_by)

    def withdraw(self, value: Decimal, memo: str = "", memo_by: str | None = None) -> None:
        self.check_open()
        checked = amount(value)
        self.check_funds(checked)
        self._withdrawn(checked, memo, memo_by)

    def debit_transfer(
        self,
        value: Decimal,
        payee: str,
        memo: str = "",
        memo_by: str | None = None,
        *,
        refund: bool = False,
    ) -> None:
        """`refund`: the payment gives back what `payee` sent, and no more (`refund_room`)."""
        self.check_open()
        if payee == self.account:
            raise SameAccountError(payee)
        checked = amount(value)
        self.check_funds(checked)
        if refund and checked > self.refund_room(payee):
            raise RefundLimitError(self.account, payee, fmt(self.refund_room(payee)))
        self._transfer_debited(checked, payee, memo, memo_by, refund)

    def credit_transfer(
        self, value: Decimal, payer: str, memo: str = "", memo_by: str | None = None
    ) -> None:
        self.check_open()
        if payer == self.account:
            raise SameAccountError(payer)
        checked = amount(value)
        self.check_room(checked)
        self._transfer_credited(checked, payer, memo, memo_by)

    def has_paid(self, other: str) -> bool:
        """Whether this account has paid `other` before, refunds apart."""
        return other in self.paid

    def refund_room(self, other: str) -> Decimal:
        """What `other` sent this account and has not been refunded yet."""
        return self.received.get(other, ZERO) - self.refunded.get(other, ZERO)

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
    def _deposited(self, amount: Decimal, memo: str, memo_by: str | None) -> None:
        self.balance += amount

    @event(Withdrawn)
    def _withdrawn(self, amount: Decimal, memo: str, memo_by: str | None) -> None:
        self.balance -= amount

    @event(TransferDebited)
    def _transfer_debited(
        self, amount: Decimal, counterparty: str, memo: str, memo_by: str | None, refund: bool
    ) -> None:
        self.balance -= amount
        totals = self.refunded if refund else self.paid
        totals[counterparty] = totals.get(counterparty, ZERO) + amount

    @event(TransferCredited)
    def _transfer_credited(
        self, amount: Decimal, counterparty: str, memo: str, memo_by: str | None
    ) -> None:
        self.balance += amount
        self.received[counterparty] = self.received.get(counterparty, ZERO) + amount

    @event(Closed)
    def _closed(self) -> None:
        self.closed = True
