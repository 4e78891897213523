"""The read use cases answered from the read models (the query side of CQRS).

Programs read the event store through their unit of work, so that they see their own
writes; a direct read by a client is answered here, from the projections, in the very
shape the use case declares.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any, Literal, TypeVar, cast

from application.bank.queries import GetBalance, ListAccounts, Statement
from application.bank.results import AccountView, StatementEntry, memo_writer
from application.read_models.routing import ReadRouting
from application.read_models.rows import BalanceRow, StatementRow
from application.read_models.service import ReadModels
from application.read_models.store import AsyncBalances, ReadModelStore
from application.use_case import UseCase
from domain.account import CURRENCY, account_id
from domain.errors import AccountNotFoundError

Visible = frozenset[str] | None
T = TypeVar("T")
# How long a read waits for the read models (or a standby) to reach what it must see, by
# default: the one default of SLUICE_READ_WAIT_SECONDS (gateway/settings.py). The projector
# keeps the read models about 0.1 s behind the log: a few seconds is ample, and short
# enough that a client hears why instead of hanging.
WAIT_SECONDS = 5.0


class ReadModelQueries:
    def __init__(
        self,
        read_models: ReadModels,
        *,
        is_fresh: Callable[[], bool],
        standby: ReadModelStore | None = None,
        wait_seconds: float = WAIT_SECONDS,
    ) -> None:
        self.read_models = read_models
        # True while a projector keeps the views current; if not, each read catches up first.
        self.is_fresh = is_fresh
        # Which copy answers: a hot standby's (SLUICE_READ_DATABASE_URL), or the primary's.
        self.routing = ReadRouting(
            read_models, standby, is_fresh=is_fresh, wait_seconds=wait_seconds
        )
        self._handlers: dict[type[UseCase[Any]], Callable[[Any, Visible, ReadModelStore], Any]] = {
            GetBalance: self._get_balance,
            ListAccounts: self._list_accounts,
            Statement: self._statement,
        }

    def handles(self, use_case: type[UseCase[Any]]) -> bool:
        return use_case in self._handlers

    def answer(self, use_case: UseCase[Any], visible: Visible, *, consistent: bool) -> Any:
        """The use case's result, from the views; a DomainError as the use case would raise."""
        handler = self._handlers[type(use_case)]
        return self.read(lambda store: handler(use_case, visible, store), consistent=consistent)

    def read(self, op: Callable[[ReadModelStore], T], *, consistent: bool) -> T:
        """`op` on the read models: with `consistent`, on views holding every event committed
        before the call (caught up first, and on the standby once it has replayed them)."""
        position = None
        if consistent or not self.is_fresh():
            caught_up = self.read_models.catch_up()
            if consistent:
                position = min(c.position for c in caught_up)
        return self.routing.read(op, position=position)

    def answers_async(self, use_case: type[UseCase[Any]], *, consistent: bool) -> bool:
        """Whether `async_answer` can answer it now: a balance or a list of accounts, from
        views a projector keeps current, in a store that reads them on an event loop."""
        return (
            use_case in (GetBalance, ListAccounts)
            and not consistent
            and self._async_store is not None
            and self.is_fresh()
        )

    async def async_answer(self, use_case: UseCase[Any], visible: Visible) -> Any:
        """As `answer`, without blocking the caller's event loop (see `answers_async`)."""
        assert self._async_store is not None, "answers_async says when this may be called"
        accounts = [use_case.account] if isinstance(use_case, GetBalance) else visible
        rows = await self.routing.aread(lambda store: _async(store).async_balances(accounts))
        if isinstance(use_case, GetBalance):
            return _found(use_case.account, rows).balance
        assert isinstance(use_case, ListAccounts), "answers_async says which use cases"
        return _listed(use_case, rows)

    @cached_property
    def _async_store(self) -> AsyncBalances | None:
        # Asked once: a check against a runtime Protocol is too dear for every request.
        stores = [self.read_models.store, self.routing.standby or self.read_models.store]
        if all(isinstance(store, AsyncBalances) for store in stores):
            return _async(stores[0])
        return None

    def _get_balance(self, query: GetBalance, visible: Visible, store: ReadModelStore) -> Any:
        return _row(store, query.account).balance

    def _list_accounts(
        self, query: ListAccounts, visible: Visible, store: ReadModelStore
    ) -> list[AccountView]:
        return _listed(query, store.balances(visible))

    def _statement(
        self, query: Statement, visible: Visible, store: ReadModelStore
    ) -> list[StatementEntry]:
        _row(store, query.account)
        rows = store.statement(account_id(query.account).hex, query.limit)
        return [statement_entry(query.account, row) for row in rows]


def _async(store: ReadModelStore) -> AsyncBalances:
    # Checked once, by _async_store: a runtime Protocol check per request is too dear.
    return cast(AsyncBalances, store)


def _row(store: ReadModelStore, account: str) -> BalanceRow:
    return _found(account, store.balances([account]))


def _found(account: str, rows: list[BalanceRow]) -> BalanceRow:
    if not rows:
        raise AccountNotFoundError(account)
    return rows[0]


def _listed(query: ListAccounts, rows: list[BalanceRow]) -> list[AccountView]:
    return [_account_view(row) for row in rows if query.owner is None or row.owner == query.owner]


def _account_view(row: BalanceRow) -> AccountView:
    status: Literal["open", "closed"] = "closed" if row.status == "closed" else "open"
    return AccountView(
        account=row.account, owner=row.owner, balance=row.balance, currency=CURRENCY, status=status
    )


def statement_entry(account: str, row: StatementRow) -> StatementEntry:
    return StatementEntry(
        version=row.version,
        kind=row.kind,  # type: ignore[arg-type]
        amount=row.amount,
        balance=row.balance,
        counterparty=row.counterparty,
        memo=row.memo,
        memo_by=memo_writer(row.kind, account, row.counterparty, row.memo_by) if row.memo else None,
        timestamp=row.time,
    )
