"""Money in, money out, money between accounts."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from application.bank.payment_policy import PAYMENT, REFUND
from application.bank.results import AccountView, TransferReceipt
from application.bank.types import AccountName, Amount, Memo
from application.field_rules import MovesMoney, Owned, guarded
from application.permissions import STAFF, Permission
from application.unit_of_work import UnitOfWork
from application.use_case import Example, UseCase
from domain.account import Account
from domain.errors import SameAccountError


class Deposit(UseCase[AccountView]):
    """Add money to an account.

    Refused if the balance would pass 1000000000000000.00, the most an account holds.
    """

    name = "deposit"
    kind = "write"
    permission = Permission.of(*STAFF)
    max_calls = 10

    account: AccountName = Field(description="The account that receives the money.")
    amount: Annotated[Amount, MovesMoney] = Field(
        description="How much, in euros, at most 2 decimals."
    )
    memo: Memo = Field(default="", description="A short note kept with the movement.")

    examples = (
        Example(
            "Deposit 25 euros in cash into erin's account.",
            'deposit(account="erin", amount=25, memo="cash")',
            asked_by="staff",
        ),
    )

    def perform(self, uow: UnitOfWork) -> AccountView:
        account = uow.get(Account, self.account)
        account.deposit(self.amount, self.memo, uow.provenance.author_of("memo", None))
        return AccountView.of(account)


class Withdraw(UseCase[AccountView]):
    """Take money out of an account.

    Refused if the balance would go below zero.
    """

    name = "withdraw"
    kind = "write"
    permission = Permission.of("customer", *STAFF)
    max_calls = 10

    account: Annotated[AccountName, Owned] = Field(description="The account the money leaves.")
    amount: Annotated[Amount, MovesMoney] = Field(
        description="How much, in euros, at most 2 decimals."
    )
    memo: Memo = Field(default="", description="A short note kept with the movement.")

    examples = (
        Example(
            "Take 40 euros out of my account.",
            'withdraw(account="{me}", amount=40)',
            asked_by="owner",
        ),
    )

    def perform(self, uow: UnitOfWork) -> AccountView:
        account = uow.get(Account, self.account)
        account.withdraw(self.amount, self.memo, uow.provenance.author_of("memo", self.account))
        return AccountView.of(account)


class Transfer(UseCase[TransferReceipt]):
    """Send money from one account to another.

    Refused if the payer would go below zero, or if either account is missing or closed,
    or if the payee would pass 1000000000000000.00, the most an account holds.
    """

    name = "transfer"
    kind = "write"
    permission = Permission.of("customer", *STAFF)
    max_calls = 10

    payer: Annotated[AccountName, Owned] = Field(description="The account that pays.")
    payee: Annotated[AccountName, guarded(PAYMENT)] = Field(
        description="The account that receives."
    )
    amount: Annotated[Amount, MovesMoney, guarded(PAYMENT)] = Field(
        description="How much, in euros, at most 2 decimals."
    )
    memo: Memo = Field(default="", description="A short note both accounts keep.")

    examples = (
        Example(
            "Pay frank.",
            question="How much should I pay frank?",
            asked_by="owner",
            then=("8 euros.", 'transfer(payer="{me}", payee="frank", amount=8)'),
        ),
        Example(
            "Send 20 euros to erin for the tickets.",
            'transfer(payer="{me}", payee="erin", amount=20, memo="tickets")',
            asked_by="owner",
        ),
        Example(
            "Pay erin 7.50 and frank 12 euros.",
            'transfer(payer="{me}", payee="erin", amount=7.50)\n'
            'transfer(payer="{me}", payee="frank", amount=12)',
            asked_by="owner",
        ),
        Example(
            "Send 10 euros each to erin and frank.",
            'for payee in ["erin", "frank"]:\n    transfer(payer="{me}", payee=payee, amount=10)',
            asked_by="owner",
        ),
        Example(
            "Give erin back the 12 euros she lent me.",
            'transfer(payer="{me}", payee="erin", amount=12, memo="refund")',
            asked_by="owner",
        ),
        Example(
            "Refund the last payment I received.",
            'received = [e for e in statement(account="{me}") if e["kind"] == "transfer_in"]\n'
            "last = received[0]\n"
            'transfer(payer="{me}", payee=str(last["counterparty"]), amount=last["amount"], '
            'memo="refund")',
            asked_by="owner",
        ),
        Example(
            "Pay the same rent as last month.",
            'paid = statement(account="{me}", limit=100)\n'
            'rent = [e for e in paid if e["kind"] == "transfer_out" and "rent" in e["memo"]]\n'
            'transfer(payer="{me}", payee=str(rent[0]["counterparty"]), '
            'amount=-rent[0]["amount"], memo="rent")',
            asked_by="owner",
        ),
        Example(
            "Move money from erin to frank.",
            question="How much should I move from erin to frank?",
            asked_by="staff",
        ),
        Example(
            "Move 30 euros from erin to frank.",
            'transfer(payer="erin", payee="frank", amount=30)',
            asked_by="staff",
        ),
    )

    def perform(self, uow: UnitOfWork) -> TransferReceipt:
        if self.payer == self.payee:
            raise SameAccountError(self.payer)
        payer, payee = uow.get_many(Account, self.payer, self.payee)
        # Both sides are checked before either changes, so a refusal leaves no half.
        payer.check_open()
        payee.check_open()
        payer.check_funds(self.amount)
        payee.check_room(self.amount)
        memo_by = uow.provenance.author_of("memo", self.payer)
        refund = REFUND in uow.provenance.grants
        payer.debit_transfer(self.amount, self.payee, self.memo, memo_by, refund=refund)
        payee.credit_transfer(self.amount, self.payer, self.memo, memo_by)
        return TransferReceipt(
            payer=self.payer,
            payee=self.payee,
            amount=self.amount,
            memo=self.memo,
            memo_by=(memo_by or self.payer) if self.memo else None,
            payer_balance=payer.balance,
        )
