"""The read use cases answered from the read models (the query side of CQRS).

Programs read the event store through their unit of work, so that they see their own
writes; a direct read by a client is answered here, from the projections, in the very
shape the use case declares.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from application.bank.queries import GetBalance, ListAccounts, Statement
from application.bank.results import AccountView, StatementEntry
from application.read_models.rows import BalanceRow, StatementRow
from application.read_models.service import ReadModels
from application.use_case import UseCase
from domain.account import CURRENCY, account_id
from domain.errors import AccountNotFoundError

Visible = frozenset[str] | None


class ReadModelQueries:
    def __init__(self, read_models: ReadModels, *, is_fresh: Callable[[], bool]) -> None:
        self.read_models = read_models
        # True while a projector keeps the views current; if not, each read catches up first.
        self.is_fresh = is_fresh
        self._handlers: dict[type[UseCase[Any]], Callable[[Any, Visible], Any]] = {
            GetBalance: self._get_balance,
            ListAccounts: self._list_accounts,
            Statement: self._statement,
        }

    def handles(self, use_case: type[UseCase[Any]]) -> bool:
        return use_case in self._handlers

    def answer(self, use_case: UseCase[Any], visible: Visible, *, consistent: bool) -> Any:
        """The use case's result, from the views; a DomainError as the use case would raise."""
        if consistent or not self.is_fresh():
            self.read_models.catch_up()
        return self._handlers[type(use_case)](use_case, visible)

    def _get_balance(self, query: GetBalance, visible: Visible) -> Any:
        return self._row(query.account).balance

    def _list_accounts(self, query: ListAccounts, visible: Visible) -> list[AccountView]:
        rows = self.read_models.store.balances(visible)
        return [
            _account_view(row) for row in rows if query.owner is None or row.owner == query.owner
        ]

    def _statement(self, query: Statement, visible: Visible) -> list[StatementEntry]:
        self._row(query.account)
        rows = self.read_models.store.statement(account_id(query.account).hex, query.limit)
        return [statement_entry(row) for row in rows]

    def _row(self, account: str) -> BalanceRow:
        rows = self.read_models.store.balances([account])
        if not rows:
            raise AccountNotFoundError(account)
        return rows[0]


def _account_view(row: BalanceRow) -> AccountView:
    status: Literal["open", "closed"] = "closed" if row.status == "closed" else "open"
    return AccountView(
        account=row.account, owner=row.owner, balance=row.balance, currency=CURRENCY, status=status
    )


def statement_entry(row: StatementRow) -> StatementEntry:
    return StatementEntry(
        version=row.version,
        kind=row.kind,  # type: ignore[arg-type]
        amount=row.amount,
        balance=row.balance,
        counterparty=row.counterparty,
        memo=row.memo,
        timestamp=row.time,
    )
