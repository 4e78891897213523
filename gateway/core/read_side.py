"""The read side: accounts, statements, the log and runs, under the same policy.

Accounts and statements are what the use cases `list_accounts` and `statement` answer,
read back into their own result types; the log and a run's story are the gateway's results.
"""

from __future__ import annotations

import time
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from pydantic import TypeAdapter

from application.audit import run_story
from application.bank.queries import GetBalance, ListAccounts, Statement
from application.bank.results import AccountView, StatementEntry
from application.bank.types import account_problem
from application.log import read_log
from application.principals import PrincipalView
from application.read_models.queries import WAIT_SECONDS, statement_entry
from application.read_models.rows import StatementRow
from application.read_models.store import PROJECTIONS
from application.results import LogEvent, RunStory
from domain.account import account_id
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.paging import Page, check_limit, decode_cursor, page_of
from gateway.core.policy.decisions import call_refusal, may_read_any_run, may_read_events

MAX_PAGE = 1000
# The results of ListAccounts and Statement, read back from their JSON; and a page of the log.
ACCOUNTS = TypeAdapter(list[AccountView])
STATEMENT = TypeAdapter(list[StatementEntry])
LOG_PAGE = TypeAdapter(list[LogEvent])


POLL_SECONDS = 0.02


class ReadSide:
    def __init__(self, gateway: Gateway, *, wait_seconds: float = WAIT_SECONDS) -> None:
        self.gateway = gateway
        self.wait_seconds = wait_seconds

    # Read your writes.

    def reach(self, min_position: int | None) -> None:
        """Return once the read models hold every event up to `min_position` (a write's
        answer gave it); past `wait_seconds`, `unavailable` naming the position. With a
        standby, the rest of the request reads it if it replays that far within the wait,
        else the primary."""
        queries = self.gateway.queries
        if min_position is None or queries is None:
            return  # without read models every read is answered from the log itself
        models = queries.read_models
        head = models.head()
        if min_position > head:
            raise GatewayError(
                "invalid-request",
                f"min_position: {min_position} is beyond the end of the log ({head}); "
                "give a position a write answered",
            )
        deadline = time.monotonic() + self.wait_seconds
        routing = queries.routing
        if routing.standby_reaches(min_position, deadline):
            assert routing.standby is not None
            routing.pin(routing.standby)
            return
        names = [models.tracking_name(n) for n in PROJECTIONS]
        while (reached := min(models.store.positions(names).values())) < min_position:
            if time.monotonic() >= deadline:
                raise GatewayError(
                    "unavailable",
                    f"min_position: the read models did not reach position {min_position} "
                    f"within {self.wait_seconds:g} s (they are at {reached}); the write is in "
                    "the log: retry, or read with consistent=true",
                    extra={"retry_after": 1, "min_position": min_position},
                )
            if queries.is_fresh():
                time.sleep(POLL_SECONDS)  # a projector is on it
            else:
                models.catch_up(to=min_position)
        routing.pin(models.store)

    # Pages.

    def accounts_page(
        self,
        principal: PrincipalView,
        *,
        cursor: str | None = None,
        limit: int = 100,
        consistent: bool = False,
        min_position: int | None = None,
    ) -> Page[AccountView]:
        """The accounts this principal may see, by account id, `limit` at a time."""
        check_limit(limit)
        after = None if cursor is None else decode_cursor(cursor, "accounts", str)
        self.reach(min_position)
        return self._page(self.accounts(principal, consistent=consistent), after, limit)

    @staticmethod
    def _page(rows: list[AccountView], after: str | None, limit: int) -> Page[AccountView]:
        if after is not None:
            rows = [row for row in rows if row.account > after]
        return page_of(rows, limit, "accounts", lambda row: row.account)

    def statement_page(
        self,
        principal: PrincipalView,
        account: str,
        *,
        cursor: str | None = None,
        limit: int = 20,
        consistent: bool = False,
        min_position: int | None = None,
    ) -> Page[StatementEntry]:
        """An account's movements, newest first, `limit` at a time."""
        rows = self.statement_rows(
            principal,
            account,
            cursor=cursor,
            limit=limit,
            consistent=consistent,
            min_position=min_position,
        )
        page = page_of(rows, limit, f"statement:{account}", lambda row: row.version)
        return Page[StatementEntry](
            items=[statement_entry(account, row) for row in page.items],
            next_cursor=page.next_cursor,
        )

    def statement_rows(
        self,
        principal: PrincipalView,
        account: str,
        *,
        cursor: str | None,
        limit: int,
        consistent: bool,
        min_position: int | None,
    ) -> list[StatementRow]:
        """Up to `limit + 1` rows of the statement after `cursor`, newest first (the one
        more tells whether a next page follows)."""
        check_limit(limit)
        before = None if cursor is None else decode_cursor(cursor, f"statement:{account}", int)
        self.reach(min_position)
        # The statement's own checks (403, 404, may call `statement`) by calling it; it
        # also brings the read models up to date first when asked to.
        self.statement(principal, account, 1, consistent=consistent)
        queries = self.gateway.queries
        assert queries is not None, "statements are read from the read models"
        # From the copy the calls above read (pinned when they had a position to see).
        return queries.routing.read(
            lambda store: store.statement(account_id(account).hex, limit + 1, before_version=before)
        )

    def accounts(self, principal: PrincipalView, *, consistent: bool = False) -> list[AccountView]:
        outcome = self.gateway.call(principal, ListAccounts.name, {}, consistent=consistent)
        return ACCOUNTS.validate_python(outcome.result)

    # The same reads on the caller's event loop, where the store allows it.

    async def async_account(
        self,
        principal: PrincipalView,
        account: str,
        *,
        consistent: bool = False,
        min_position: int | None = None,
    ) -> AccountView | None:
        """As `account`, without a worker thread; None when it cannot be answered so (a
        store without asynchronous reads, a position to wait for, a read that must catch
        up first, a refused call): `account`, in a thread, then answers."""
        if min_position is not None:
            return None
        self._readable(principal, account)
        rows = await self.async_accounts(principal, consistent=consistent)
        return None if rows is None else _one(account, rows)

    async def async_accounts_page(
        self,
        principal: PrincipalView,
        *,
        cursor: str | None = None,
        limit: int = 100,
        consistent: bool = False,
        min_position: int | None = None,
    ) -> Page[AccountView] | None:
        """As `accounts_page`, without a worker thread; None as for `async_account`."""
        check_limit(limit)
        after = None if cursor is None else decode_cursor(cursor, "accounts", str)
        if min_position is not None:
            return None
        rows = await self.async_accounts(principal, consistent=consistent)
        if rows is None:
            return None
        return self._page(rows, after, limit)

    async def async_accounts(
        self, principal: PrincipalView, *, consistent: bool = False
    ) -> list[AccountView] | None:
        outcome = await self.gateway.async_query(
            principal, ListAccounts.name, {}, consistent=consistent
        )
        return None if outcome is None else ACCOUNTS.validate_python(outcome.result)

    def account(
        self,
        principal: PrincipalView,
        account: str,
        *,
        consistent: bool = False,
        min_position: int | None = None,
    ) -> AccountView:
        self.reach(min_position)
        self._readable(principal, account)
        return _one(account, self.accounts(principal, consistent=consistent))

    def statement(
        self, principal: PrincipalView, account: str, limit: int, *, consistent: bool = False
    ) -> list[StatementEntry]:
        self.account(principal, account, consistent=consistent)  # 403 or 404 first
        asked = {"account": account, "limit": limit}
        outcome = self.gateway.call(principal, Statement.name, asked)
        return STATEMENT.validate_python(outcome.result)

    def events(self, principal: PrincipalView, after: int, limit: int) -> list[LogEvent]:
        if not may_read_events(principal):
            raise _not_an_auditor(principal, "the event log")
        return LOG_PAGE.validate_python(read_log(self.gateway.ledger, after, min(limit, MAX_PAGE)))

    def run(self, principal: PrincipalView, run_id: str) -> RunStory:
        if not may_read_any_run(principal):
            raise _not_an_auditor(principal, "runs")
        run_id = self.gateway.run_id(principal, run_id)
        try:
            return run_story(self.gateway.ledger, UUID(run_id), self.gateway.money_moves)
        except (ValueError, LookupError, AggregateNotFoundError):
            raise GatewayError("not-found", f"no run {run_id}") from None

    def _readable(self, principal: PrincipalView, account: str) -> None:
        problem = account_problem(account)
        if problem:
            raise GatewayError("not-found", f"no account: {problem}")
        # Reading an account is what calling get_balance on it would be.
        refusal = call_refusal(principal, GetBalance, {"account": account})
        if refusal:
            raise GatewayError("forbidden", refusal)


def _not_an_auditor(principal: PrincipalView, what: str) -> GatewayError:
    return GatewayError(
        "forbidden", f"{what} may be read by auditors and admins, not principal {principal.name}"
    )


def _one(account: str, rows: list[AccountView]) -> AccountView:
    for row in rows:
        if row.account == account:
            return row
    raise GatewayError("not-found", f"no account {account}")
