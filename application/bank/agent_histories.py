"""How the agent reads an account's history: who wrote each memo and owner's name in it,
and the balance after each of its events (gateway/agent/authors.py asks).

The history says who wrote each memo: the writer its event names (`memo_by`: a program
copied it from what that party wrote), else a transfer's payer (the account debited; on
the payee's side, its counterparty), a withdrawal's account, a deposit's staff (only staff
may deposit). An owner's name was written by the staff who opened the account.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from application.bank.queries import GetBalance
from application.bank.types import account_problem
from application.domains import AgentHistories, HistoryTexts
from application.telling import STAFF
from domain.account import Account


def is_account_id(value: object) -> bool:
    return account_problem(value) is None


def read_account(account: str, history: Sequence[object]) -> HistoryTexts:
    """The writers of the account's texts, and its balance after each version."""
    writers: list[tuple[str, str]] = []
    balances: dict[int, Decimal] = {}
    balance = Decimal("0.00")
    for event in history:
        amount = getattr(event, "amount", Decimal(0))
        writer: str | None = None
        if isinstance(event, Account.Opened):
            writers.append((event.owner, STAFF))
        elif isinstance(event, Account.Deposited):
            balance, writer = balance + amount, STAFF
        elif isinstance(event, Account.Withdrawn | Account.TransferDebited):
            balance, writer = balance - amount, account
        elif isinstance(event, Account.TransferCredited):
            balance, writer = balance + amount, event.counterparty
        memo = getattr(event, "memo", "")
        # A memo a program copied from another party's text is that party's.
        writer = getattr(event, "memo_by", None) or writer
        if writer is not None and memo:
            writers.append((memo, writer))
        version = getattr(event, "originator_version", None)
        if isinstance(version, int):
            balances[version] = balance
    return HistoryTexts(writers=tuple(writers), figures=balances)


BANK_HISTORIES = AgentHistories(
    is_id=is_account_id,
    reader=GetBalance,
    argument="account",
    read=read_account,
    kind=Account,
)
