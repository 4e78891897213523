"""The bank's read models: balances and the statement (`application.bank.projections`), and
the reads they answer, in the very shape the use cases declare: a balance, the accounts,
an account's latest movements. Balances and accounts are also answered on the caller's
event loop where the store reads records so (Postgres)."""

from __future__ import annotations

from typing import Literal, cast

from application.bank.projections import BalancesProjection, StatementProjection
from application.bank.queries import GetBalance, ListAccounts, Statement
from application.bank.records import (
    BalanceRow,
    StatementRow,
    async_balances,
    balances,
    statement,
)
from application.bank.results import AccountView, Balance, StatementEntry, memo_writer
from application.read_models.declared import DomainReadModels, Visible
from application.read_models.store import AsyncDocuments, ReadModelStore
from domain.account import CURRENCY
from domain.errors import AccountNotFoundError


def _get_balance(query: GetBalance, visible: Visible, store: ReadModelStore) -> Balance:
    return _row(store, query.account).balance


def _list_accounts(
    query: ListAccounts, visible: Visible, store: ReadModelStore
) -> list[AccountView]:
    return _listed(query, balances(store, visible))


def _statement(query: Statement, visible: Visible, store: ReadModelStore) -> list[StatementEntry]:
    _row(store, query.account)
    rows = statement(store, query.account, query.limit)
    return [statement_entry(query.account, row) for row in rows]


async def _async_balance(query: GetBalance, visible: Visible, store: ReadModelStore) -> Balance:
    rows = await async_balances(_async(store), [query.account])
    return _found(query.account, rows).balance


async def _async_accounts(
    query: ListAccounts, visible: Visible, store: ReadModelStore
) -> list[AccountView]:
    return _listed(query, await async_balances(_async(store), visible))


def _reads_async(store: ReadModelStore) -> bool:
    return isinstance(store, AsyncDocuments)


def _async(store: ReadModelStore) -> AsyncDocuments:
    # Checked once per store (`_reads_async`): a runtime Protocol check per request is too dear.
    return cast(AsyncDocuments, store)


def _row(store: ReadModelStore, account: str) -> BalanceRow:
    return _found(account, balances(store, [account]))


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


BANK_READ_MODELS = DomainReadModels(
    projections=(BalancesProjection, StatementProjection),
    answers={GetBalance: _get_balance, ListAccounts: _list_accounts, Statement: _statement},
    async_answers={GetBalance: _async_balance, ListAccounts: _async_accounts},
    reads_async=_reads_async,
)
