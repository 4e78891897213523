"""The inbox: proposals as a list, newest first, a page at a time (`GET /v1/programs`).

A principal lists its own runs (its person's and its agents' keys share its name); auditors
and admins, who may read any run, list everyone's. `pending` lists what waits for a person:
a proposal whose time ran out is left out, though nobody has recorded its expiry yet.

The list is read from the runs read model (so a client that just proposed reads it with
the write's `min_position`); each run shown is then read from the log for its request and
its expiry, which the read model does not hold.
"""

from __future__ import annotations

from typing import cast
from uuid import UUID

from pydantic import Field

from application.money_moves import MoneyMove, MoneyReader
from application.principals import PrincipalView
from application.results import ProposedVia, Result, RunStatus
from application.runs import described
from domain.run import PENDING, Run
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.paging import Page, check_limit, decode_cursor, encode_cursor
from gateway.core.policy.decisions import may_read_any_run
from gateway.core.read_side import ReadSide

STATUSES: tuple[RunStatus, ...] = ("pending", "committed", "failed", "rejected", "expired")
LIST = "programs"


class ProposalSummary(Result):
    """One run as the inbox lists it; `GET /v1/programs/{id}` has the whole proposal."""

    id: str
    status: RunStatus
    principal: str = Field(description="Whose proposal it is (a person's name).")
    proposed_by: str = Field(
        description="Who proposed it, in words: the person, or the person's agent, and over "
        "which interface (`alice's agent (key 0c1d2e3f4a5b, over mcp)`)."
    )
    proposed_via: ProposedVia | None
    kind: str = Field(description="program, or direct (a use case called directly).")
    language: str
    request: str | None = Field(description="The request it answers, if given.")
    request_by: str | None = Field(
        description="Whose words the request is: the person's, or their agent's."
    )
    source: str = Field(description="The program's text.")
    events: int = Field(description="How many events its preview would append.")
    moves: list[MoneyMove] = Field(
        description="The money its preview moves: payer, payee, amount, currency."
    )
    reads_only: bool = Field(description="It writes nothing: a read, which needs no decision.")
    created_at: str
    expires_at: str = Field(description="After this, confirming it answers 410.")
    position: int = Field(description="The log position of its proposal.")


class Inbox:
    def __init__(self, gateway: Gateway, read_side: ReadSide) -> None:
        self.gateway = gateway
        self.read_side = read_side

    def list(
        self,
        principal: PrincipalView,
        *,
        status: str | None = PENDING,
        cursor: str | None = None,
        limit: int = 50,
        consistent: bool = False,
        min_position: int | None = None,
    ) -> Page[ProposalSummary]:
        check_limit(limit)
        if status is not None and status not in STATUSES:
            raise GatewayError(
                "invalid-request", f"status: {status!r} is not one of {', '.join(STATUSES)}"
            )
        before = None if cursor is None else decode_cursor(cursor, _list(status), int)
        self.read_side.reach(min_position)
        queries = self.gateway.queries
        assert queries is not None, "the inbox is read from the read models"
        owner = None if may_read_any_run(principal) else principal.name
        rows = queries.read(
            lambda store: store.runs_page(status, owner, before, limit + 1), consistent=consistent
        )
        seen = rows[:limit]
        now = self.gateway.proposals.clock()
        items = []
        for row in seen:
            run: object = self.gateway.ledger.load_record(UUID(row.run_id))
            assert isinstance(run, Run)
            if status == PENDING and (run.status != PENDING or now >= run.expires_at):
                continue  # decided since the read model's row, or its time ran out
            items.append(_summary(run, row.position, self.gateway.money_moves))
        more = len(rows) > limit
        next_cursor = encode_cursor(_list(status), seen[-1].position) if more else None
        return Page[ProposalSummary](items=items, next_cursor=next_cursor)


def _list(status: str | None) -> str:
    """A cursor serves the list of one status only."""
    return f"{LIST}:{status or 'all'}"


def _summary(run: Run, position: int, money_moves: MoneyReader) -> ProposalSummary:
    via = None if run.proposed_via is None else ProposedVia.model_validate(run.proposed_via)
    return ProposalSummary(
        id=str(run.id),
        status=cast(RunStatus, run.status),
        principal=run.principal,
        proposed_via=via,
        **described(run, via, money_moves),
        kind=run.kind,
        language=run.language,
        request=run.request,
        source=run.source,
        events=len(run.preview.get("events", [])),
        created_at=run.created_on.isoformat(),
        expires_at=run.expires_at.isoformat(),
        position=position,
    )
