"""The bank: its use cases, in the order the directory lists them."""

from __future__ import annotations

from typing import Any

from application.bank.accounts import CloseAccount, OpenAccount
from application.bank.movements import Deposit, Transfer, Withdraw
from application.bank.queries import GetBalance, ListAccounts, Statement
from application.use_case import UseCase

BANK_USE_CASES: tuple[type[UseCase[Any]], ...] = (
    OpenAccount,
    Deposit,
    Withdraw,
    Transfer,
    GetBalance,
    ListAccounts,
    Statement,
    CloseAccount,
)

DIRECTORY_HEADER = (
    "You act on bank accounts through the use cases below.\n"
    "Before using one, call find_actions with its name to get its full sheet."
)

__all__ = ["BANK_USE_CASES", "DIRECTORY_HEADER"]
