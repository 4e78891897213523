"""The read side of the HTTP API: accounts, statements, the log and runs, under the same policy."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.domain import AggregateEvent

from application.bank.queries import GetBalance
from application.bank.types import account_problem
from application.log import read_log
from application.principals import PrincipalView
from domain.run import Run
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.policy.decisions import call_refusal, may_read_any_run, may_read_events
from gateway.core.runs import outcome_json, proposal_json

MAX_PAGE = 1000


class ReadSide:
    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway

    def accounts(
        self, principal: PrincipalView, *, consistent: bool = False
    ) -> list[dict[str, Any]]:
        outcome = self.gateway.call(principal, "list_accounts", {}, consistent=consistent)
        result: list[dict[str, Any]] = outcome.result
        return result

    def account(
        self, principal: PrincipalView, account: str, *, consistent: bool = False
    ) -> dict[str, Any]:
        self._readable(principal, account)
        for row in self.accounts(principal, consistent=consistent):
            if row["account"] == account:
                return row
        raise GatewayError("not-found", f"no account {account}")

    def statement(
        self, principal: PrincipalView, account: str, limit: int, *, consistent: bool = False
    ) -> list[dict[str, Any]]:
        self.account(principal, account, consistent=consistent)  # 403 or 404 first
        outcome = self.gateway.call(principal, "statement", {"account": account, "limit": limit})
        entries: list[dict[str, Any]] = outcome.result
        return entries

    def events(self, principal: PrincipalView, after: int, limit: int) -> list[dict[str, Any]]:
        if not may_read_events(principal):
            raise _not_an_auditor(principal, "the event log")
        return read_log(self.gateway.ledger, after, min(limit, MAX_PAGE))

    def run(self, principal: PrincipalView, run_id: str) -> dict[str, Any]:
        if not may_read_any_run(principal):
            raise _not_an_auditor(principal, "runs")
        try:
            run: object = self.gateway.ledger.repository.get(UUID(run_id))
        except (ValueError, AggregateNotFoundError):
            raise GatewayError("not-found", f"no run {run_id}") from None
        if not isinstance(run, Run):
            raise GatewayError("not-found", f"no run {run_id}")
        history = [
            {"type": type(e).__qualname__.rsplit(".", 1)[-1], "timestamp": e.timestamp.isoformat()}
            for e in self.gateway.ledger.events.get(run.id)
            if isinstance(e, AggregateEvent)
        ]
        return proposal_json(run) | {"outcome": outcome_json(run), "history": history}

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
