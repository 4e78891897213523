"""Reading balances, accounts and statements."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from pydantic import Field

from application.bank.results import AccountView, Balance, StatementEntry
from application.bank.statement import latest_entries
from application.bank.types import AccountName, Owner
from application.field_rules import Owned
from application.permissions import EVERYONE, Permission
from application.unit_of_work import UnitOfWork
from application.use_case import Example, UseCase
from domain.account import Account


class GetBalance(UseCase[Decimal]):
    """The balance of an account, in euros."""

    name = "get_balance"
    kind = "read"
    permission = Permission.of(*EVERYONE)

    account: Annotated[AccountName, Owned] = Field(description="The account to read.")

    examples = (
        Example("How much money do I have?", 'get_balance(account="{me}")', asked_by="owner"),
        Example("What is erin's balance?", 'get_balance(account="erin")', asked_by="staff"),
    )

    def perform(self, uow: UnitOfWork) -> Balance:
        return uow.get(Account, self.account).balance


class ListAccounts(UseCase[list[AccountView]]):
    """The accounts, with owner, balance and status, optionally of one owner only."""

    name = "list_accounts"
    kind = "read"
    permission = Permission.of(*EVERYONE)

    owner: Owner | None = Field(default=None, description="Only this owner's accounts, e.g. Alice.")

    examples = (
        Example("Show every account.", "list_accounts()", asked_by="staff"),
        Example(
            "How much do all accounts hold together?",
            'total = 0\nfor account in list_accounts():\n    total = total + account["balance"]\n'
            "total",
            asked_by="staff",
        ),
    )

    def perform(self, uow: UnitOfWork) -> list[AccountView]:
        # By account id, as the read models list them (a direct read is answered there).
        views = [AccountView.of(uow.get(Account, name)) for name in sorted(uow.keys(Account))]
        return [v for v in views if self.owner is None or v.owner == self.owner]


class Statement(UseCase[list[StatementEntry]]):
    """The latest movements of an account, newest first."""

    name = "statement"
    kind = "read"
    permission = Permission.of(*EVERYONE)

    account: Annotated[AccountName, Owned] = Field(description="The account to read.")
    limit: int = Field(default=20, ge=1, le=100, description="How many movements, 1 to 100.")

    examples = (
        Example(
            "What did I spend lately?", 'statement(account="{me}", limit=10)', asked_by="owner"
        ),
        Example("Show frank's movements.", 'statement(account="frank")', asked_by="staff"),
    )

    def perform(self, uow: UnitOfWork) -> list[StatementEntry]:
        # The last `limit` events only, read from the events' index; balances walk back
        # from the account's own (a test keeps this equal to folding the whole history).
        latest = uow.latest_history(Account, self.account, self.limit)
        return latest_entries(self.account, latest, uow.get(Account, self.account).balance)
