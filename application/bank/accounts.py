"""Opening and closing accounts."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from pydantic import Field

from application.bank.results import AccountView
from application.bank.types import AccountName, OptionalAmount, Owner
from application.field_rules import MovesMoney, Owned
from application.permissions import STAFF, Permission
from application.unit_of_work import UnitOfWork
from application.use_case import Example, UseCase
from domain.account import Account


class OpenAccount(UseCase[AccountView]):
    """Open a new account in euros, optionally with a first deposit.

    Refused if an account with that id already exists.
    """

    name = "open_account"
    kind = "write"
    permission = Permission.of(*STAFF)
    max_calls = 5

    account: AccountName = Field(description="The new account's id, e.g. dan.")
    owner: Owner = Field(description="Who owns the account, e.g. Dan.")
    # The first deposit is money coming in like any other: it counts toward the cap.
    initial_deposit: Annotated[OptionalAmount, MovesMoney] = Field(
        default=Decimal(0),
        description="Euros deposited on opening (0 for none).",
        json_schema_extra={"default": 0},
    )

    examples = (
        Example(
            "Open an account for Erin, id erin, with 50 euros.",
            'open_account(account="erin", owner="Erin", initial_deposit=50)',
            asked_by="staff",
        ),
    )

    def perform(self, uow: UnitOfWork) -> AccountView:
        account = Account(account=self.account, owner=self.owner)
        uow.add(account, self.account)
        if self.initial_deposit > 0:
            account.deposit(self.initial_deposit, "initial deposit")
        return AccountView.of(account)


class CloseAccount(UseCase[AccountView]):
    """Close an account.

    Refused unless its balance is zero; a closed account takes no more operations.
    """

    name = "close_account"
    kind = "write"
    permission = Permission.of("customer", *STAFF)
    max_calls = 5

    account: Annotated[AccountName, Owned] = Field(description="The account to close.")

    examples = (
        Example("Close my account.", 'close_account(account="{me}")', asked_by="owner"),
        Example("Close erin's account.", 'close_account(account="erin")', asked_by="staff"),
    )

    def perform(self, uow: UnitOfWork) -> AccountView:
        account = uow.get(Account, self.account)
        account.close()
        return AccountView.of(account)
