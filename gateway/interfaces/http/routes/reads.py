"""The read side: accounts and statements; the log and runs for auditors."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Concatenate, ParamSpec, TypeVar

from fastapi import APIRouter, Path, Query, Request
from fastapi.security import HTTPAuthorizationCredentials
from starlette.concurrency import run_in_threadpool

from application.bank import results as bank
from application.principals import PrincipalView
from gateway.core.paging import Page
from gateway.interfaces.http.deps import Credentials, PrincipalDep, ReadSideDep, admitted_reading
from gateway.interfaces.http.paging import Cursor, Limit, MinPosition
from gateway.interfaces.http.schemas import (
    PROBLEMS,
    AccountView,
    LogEvent,
    RunStory,
    StatementEntry,
)

router = APIRouter(prefix="/v1", responses=PROBLEMS)
P = ParamSpec("P")
T = TypeVar("T")
AccountId = Annotated[str, Path(description="An account id, e.g. alice.", max_length=64)]
Consistent = Annotated[
    bool,
    Query(
        description="Wait until the read model has every event committed before this request "
        "(by default it may lag the log by a fraction of a second)."
    ),
]


@router.get(
    "/accounts", response_model=Page[AccountView], operation_id="list_accounts", tags=["accounts"]
)
async def accounts(
    request: Request,
    read_side: ReadSideDep,
    credentials: Credentials,
    cursor: Cursor = None,
    limit: Limit = 100,
    consistent: Consistent = False,
    min_position: MinPosition = None,
) -> Page[bank.AccountView]:
    """The accounts this principal may see (a customer: its own), by account id, a page at
    a time."""
    return await _served(
        request,
        credentials,
        read_side.async_accounts_page,
        read_side.accounts_page,
        cursor=cursor,
        limit=limit,
        consistent=consistent,
        min_position=min_position,
    )


@router.get(
    "/accounts/{account}", response_model=AccountView, operation_id="get_account", tags=["accounts"]
)
async def account(
    request: Request,
    read_side: ReadSideDep,
    credentials: Credentials,
    account: AccountId,
    consistent: Consistent = False,
    min_position: MinPosition = None,
) -> bank.AccountView:
    """One account and its balance."""
    return await _served(
        request,
        credentials,
        read_side.async_account,
        read_side.account,
        account,
        consistent=consistent,
        min_position=min_position,
    )


@router.get(
    "/accounts/{account}/statement",
    response_model=Page[StatementEntry],
    operation_id="get_statement",
    tags=["accounts"],
)
async def statement(
    read_side: ReadSideDep,
    principal: PrincipalDep,
    account: AccountId,
    cursor: Cursor = None,
    limit: Limit = 20,
    consistent: Consistent = False,
    min_position: MinPosition = None,
) -> Page[bank.StatementEntry]:
    """An account's movements, newest first, a page at a time."""
    return await run_in_threadpool(
        read_side.statement_page,
        principal,
        account,
        cursor=cursor,
        limit=limit,
        consistent=consistent,
        min_position=min_position,
    )


@router.get("/events", response_model=list[LogEvent], operation_id="list_events", tags=["audit"])
async def events(
    read_side: ReadSideDep,
    principal: PrincipalDep,
    after: Annotated[int, Query(ge=0, le=2**62, description="Last position already seen.")] = 0,
    limit: Annotated[int, Query(ge=1, le=1000, description="At most this many events.")] = 100,
) -> list[LogEvent]:
    """The event log after a position (auditors and admins)."""
    return await run_in_threadpool(read_side.events, principal, after, limit)


@router.get("/runs/{run_id}", response_model=RunStory, operation_id="get_run", tags=["audit"])
async def run(
    read_side: ReadSideDep,
    principal: PrincipalDep,
    run_id: Annotated[str, Path(max_length=64)],
) -> RunStory:
    """The whole story of one run (auditors and admins)."""
    return await run_in_threadpool(read_side.run, principal, run_id)


async def _served(
    request: Request,
    credentials: HTTPAuthorizationCredentials | None,
    on_loop: Callable[Concatenate[PrincipalView, P], Awaitable[T | None]],
    in_thread: Callable[Concatenate[PrincipalView, P], T],
    *args: P.args,
    **kwargs: P.kwargs,
) -> T:
    """The read answered on the event loop where the store reads asynchronously
    (Postgres), without a worker thread, beside the key's admission (`admitted_reading`);
    else (None) by its blocking twin in a thread."""
    principal, answered = await admitted_reading(
        request, credentials, lambda who: on_loop(who, *args, **kwargs)
    )
    if answered is not None:
        return answered
    return await run_in_threadpool(in_thread, principal, *args, **kwargs)
