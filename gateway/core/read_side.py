"""The read side: accounts, statements, the log and runs, under the same policy.

Accounts and statements are what the use cases `list_accounts` and `statement` answer,
read back into their own result types; the log and a run's story are the gateway's results.
"""

from __future__ import annotations

from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from pydantic import TypeAdapter

from application.bank.queries import GetBalance, ListAccounts, Statement
from application.bank.results import AccountView, StatementEntry
from application.bank.types import account_problem
from application.log import read_log
from application.principals import PrincipalView
from domain.run import Run
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.policy.decisions import call_refusal, may_read_any_run, may_read_events
from gateway.core.results import LogEvent, RunStory
from gateway.core.runs import story_of

MAX_PAGE = 1000
# The results of ListAccounts and Statement, read back from their JSON; and a page of the log.
ACCOUNTS = TypeAdapter(list[AccountView])
STATEMENT = TypeAdapter(list[StatementEntry])
LOG_PAGE = TypeAdapter(list[LogEvent])


class ReadSide:
    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway

    def accounts(self, principal: PrincipalView, *, consistent: bool = False) -> list[AccountView]:
        outcome = self.gateway.call(principal, ListAccounts.name, {}, consistent=consistent)
        return ACCOUNTS.validate_python(outcome.result)

    def account(
        self, principal: PrincipalView, account: str, *, consistent: bool = False
    ) -> AccountView:
        self._readable(principal, account)
        for row in self.accounts(principal, consistent=consistent):
            if row.account == account:
                return row
        raise GatewayError("not-found", f"no account {account}")

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
        try:
            run: object = self.gateway.ledger.repository.get(UUID(run_id))
        except (ValueError, AggregateNotFoundError):
            raise GatewayError("not-found", f"no run {run_id}") from None
        if not isinstance(run, Run):
            raise GatewayError("not-found", f"no run {run_id}")
        return story_of(run, list(self.gateway.ledger.events.get(run.id)))

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
