"""Programs: propose, read, confirm by preview hash, reject, preview again."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Query
from starlette.concurrency import run_in_threadpool

from gateway.core.inbox import STATUSES, Inbox, ProposalSummary
from gateway.core.paging import Page
from gateway.interfaces.http.deps import GatewayDep, PrincipalDep, ReadSideDep
from gateway.interfaces.http.idempotency import idempotent, request_hash
from gateway.interfaces.http.paging import Cursor, Limit, MinPosition
from gateway.interfaces.http.schemas import (
    PROBLEMS,
    ConfirmRequest,
    Outcome,
    ProgramRequest,
    Proposal,
    StaleProblem,
    problem_response,
)

router = APIRouter(prefix="/v1/programs", tags=["programs"], responses=PROBLEMS)
RunId = Annotated[str, Path(description="The proposal's id.", max_length=64)]


@router.post("", status_code=201, response_model=Proposal, operation_id="propose_program")
async def propose(gateway: GatewayDep, principal: PrincipalDep, program: ProgramRequest) -> Any:
    """Check and preview a program. A write program waits for confirmation of its
    `preview_hash`; a read-only one completes at once."""
    # Each route's blocking work is one hand-over to the thread pool (see `deps`).
    return await run_in_threadpool(
        gateway.propose, principal, program.language, program.source, request=program.request
    )


@router.get("", response_model=Page[ProposalSummary], operation_id="list_programs")
async def inbox(
    gateway: GatewayDep,
    read_side: ReadSideDep,
    principal: PrincipalDep,
    status: Annotated[
        str | None,
        Query(
            description=f"Only runs in this state: {', '.join(STATUSES)}. `pending` (the "
            "default) lists what waits for a person's decision; leave it empty for all.",
            max_length=16,
        ),
    ] = "pending",
    cursor: Cursor = None,
    limit: Limit = 50,
    consistent: Annotated[
        bool, Query(description="Bring the read models up to the log's end first.")
    ] = False,
    min_position: MinPosition = None,
) -> Page[ProposalSummary]:
    """The inbox: this principal's proposals (auditors and admins: everyone's), newest
    first, a page at a time."""
    return await run_in_threadpool(
        Inbox(gateway, read_side).list,
        principal,
        status=status or None,
        cursor=cursor,
        limit=limit,
        consistent=consistent,
        min_position=min_position,
    )


@router.get("/{run_id}", response_model=Proposal, operation_id="get_program")
async def get(gateway: GatewayDep, principal: PrincipalDep, run_id: RunId) -> Any:
    """A proposal and, once decided, its outcome."""
    return await run_in_threadpool(gateway.proposal, principal, run_id)


@router.post(
    "/{run_id}/confirm",
    response_model=Outcome,
    operation_id="confirm_program",
    responses={
        409: problem_response(
            "Stale: nothing written; `proposal` holds a fresh preview", StaleProblem, status=409
        ),
        410: problem_response("Expired or ended", status=410),
    },
)
async def confirm(
    gateway: GatewayDep,
    principal: PrincipalDep,
    run_id: RunId,
    confirmation: ConfirmRequest,
    idempotency_key: Annotated[
        str | None,
        Header(description="Replay the first answer for the same key and body.", max_length=255),
    ] = None,
) -> Any:
    """Commit exactly the previewed events, once. A person confirms: a key with scope
    agent gets 403."""

    def answer() -> Any:
        # Before any idempotent replay: an agent's key never reaches a stored confirmation.
        gateway.check_decides(principal, run_id, "confirm")
        fingerprint = request_hash(f"/v1/programs/{run_id}/confirm", confirmation.model_dump())
        return idempotent(
            gateway,
            principal,
            idempotency_key,
            fingerprint,
            lambda record: gateway.confirm(
                principal, run_id, confirmation.preview_hash, record=record
            ),
        )

    return await run_in_threadpool(answer)


@router.post("/{run_id}/reject", response_model=Proposal, operation_id="reject_program")
async def reject(gateway: GatewayDep, principal: PrincipalDep, run_id: RunId) -> Any:
    """End a proposal without writing anything. A key with scope agent gets 403."""
    return await run_in_threadpool(gateway.reject, principal, run_id)


@router.post(
    "/{run_id}/refresh",
    response_model=Proposal,
    operation_id="refresh_program",
    responses={410: problem_response("Expired or ended")},
)
async def refresh(gateway: GatewayDep, principal: PrincipalDep, run_id: RunId) -> Any:
    """Preview a pending proposal again when the records it read have moved since its
    preview (`moved_since_preview` of GET names them): the answer holds the fresh preview and
    its new hash to confirm, or the proposal as it is when nothing moved. Nothing is
    committed. A key with scope agent gets 403."""
    return await run_in_threadpool(gateway.refresh, principal, run_id)
