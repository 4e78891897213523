"""The bank's resources under /v1, derived from its read use cases: the accounts a principal
may see (`list_accounts`), one of them, and an account's statement (`statement`), read a
page at a time from the read models."""

from __future__ import annotations

from application.bank.queries import GetBalance, ListAccounts, Statement
from application.bank.read_models import statement_entry
from application.bank.records import StatementRow, statement
from application.bank.types import account_problem
from application.read_models.store import ReadModelStore
from application.read_routes import History, Listing


def _statement_rows(
    store: ReadModelStore, account: str, limit: int, before: int | None
) -> list[StatementRow]:
    return statement(store, account, limit, before_version=before)


ACCOUNTS = Listing(
    name="accounts",
    use_case=ListAccounts,
    key="account",
    one="account",
    guard=GetBalance,
    guard_argument="account",
    id_problem=account_problem,
    id_description="An account id, e.g. alice.",
    example={
        "account": "alice",
        "owner": "Alice",
        "balance": "88.00",
        "currency": "EUR",
        "status": "open",
    },
    doc="An account and its balance: what `list_accounts` answers (money as exact text).",
)

STATEMENT = History(
    name="statement",
    of=ACCOUNTS,
    use_case=Statement,
    argument="account",
    probe={"limit": 1},
    rows=_statement_rows,
    entry=statement_entry,
    example={
        "version": 2,
        "kind": "transfer_in",
        "amount": "12.00",
        "balance": "12.00",
        "counterparty": "alice",
        "memo": "rent",
        "timestamp": "2026-11-29T15:00:34.835212+00:00",
    },
    doc="One movement on an account: what `statement` answers (money as exact text).",
    operation_id="get_statement",
)

BANK_READ_ROUTES = (ACCOUNTS, STATEMENT)
