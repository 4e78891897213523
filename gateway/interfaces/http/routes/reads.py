"""The read side: the served domain's resources (derived from its read use cases, see
`application.read_routes`); the log and runs for auditors."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Annotated, Any, Concatenate, ParamSpec, TypeVar

from fastapi import APIRouter, Path, Query, Request
from fastapi.security import HTTPAuthorizationCredentials
from pydantic.fields import FieldInfo
from starlette.concurrency import run_in_threadpool

from application.domains import Domain
from application.principals import PrincipalView
from application.read_routes import History, Listing, Record, item_type, shown_model
from gateway.core.paging import Page
from gateway.interfaces.http.deps import Credentials, PrincipalDep, ReadSideDep, admitted_reading
from gateway.interfaces.http.paging import Cursor, Limit, MinPosition
from gateway.interfaces.http.schemas import PROBLEMS, LogEvent, RunStory

P = ParamSpec("P")
T = TypeVar("T")
Consistent = Annotated[
    bool,
    Query(
        description="Wait until the read model has every event committed before this request "
        "(by default it may lag the log by a fraction of a second)."
    ),
]
# The gateway's own paths under /v1: no domain's resource may take one.
GATEWAY_PATHS = frozenset(
    {"events", "runs", "use-cases", "programs", "proposals", "agent", "catalog", "health"}
)


def router_for(domain: Domain) -> APIRouter:
    """The read routes: the domain's resources, then the log and runs."""
    router = APIRouter(prefix="/v1", responses=PROBLEMS)
    for route in domain.read_routes:
        head = route.of.name if isinstance(route, History) else route.name
        if head in GATEWAY_PATHS:
            raise ValueError(f"domain {domain.name}: /v1/{head} is the gateway's own path")
        if isinstance(route, Listing):
            _listing(router, route)
        elif isinstance(route, History):
            _history(router, route)
        else:
            _record(router, route)
    router.add_api_route(
        "/events",
        events,
        methods=["GET"],
        response_model=list[LogEvent],
        operation_id="list_events",
        tags=["audit"],
    )
    router.add_api_route(
        "/runs/{run_id}",
        run,
        methods=["GET"],
        response_model=RunStory,
        operation_id="get_run",
        tags=["audit"],
    )
    return router


def _listing(router: APIRouter, listing: Listing) -> None:
    record = shown_model(item_type(listing.use_case), listing.example, listing.doc)

    async def listed(
        request: Request,
        read_side: ReadSideDep,
        credentials: Credentials,
        cursor: Cursor = None,
        limit: Limit = 100,
        consistent: Consistent = False,
        min_position: MinPosition = None,
    ) -> Any:
        return await _served(
            request,
            credentials,
            partial(read_side.async_list_page, listing),
            partial(read_side.list_page, listing),
            cursor=cursor,
            limit=limit,
            consistent=consistent,
            min_position=min_position,
        )

    async def one(
        request: Request,
        read_side: ReadSideDep,
        credentials: Credentials,
        consistent: Consistent = False,
        min_position: MinPosition = None,
        **path: str,
    ) -> Any:
        return await _served(
            request,
            credentials,
            partial(read_side.async_one, listing),
            partial(read_side.one, listing),
            path[listing.key],
            consistent=consistent,
            min_position=min_position,
        )

    _with_default(listed, "limit", listing.default_limit)
    _with_path(one, listing.key, listing.id_description)
    router.add_api_route(
        f"/{listing.name}",
        listed,
        methods=["GET"],
        response_model=Page[record],  # type: ignore[valid-type]
        operation_id=listing.use_case.name,
        tags=[listing.name],
        summary=f"List {listing.name}",
        description=f"The {listing.name} this principal may see (a customer: its own), by "
        f"{listing.key}, a page at a time.",
    )
    router.add_api_route(
        f"/{listing.name}/{{{listing.key}}}",
        one,
        methods=["GET"],
        response_model=record,
        operation_id=f"get_{listing.one}",
        tags=[listing.name],
        summary=f"Get {listing.one}",
        description=f"One {listing.one}: as `{listing.use_case.name}` lists it.",
    )


def _history(router: APIRouter, history: History) -> None:
    entry = shown_model(item_type(history.use_case), history.example, history.doc)
    of = history.of

    async def read(
        read_side: ReadSideDep,
        principal: PrincipalDep,
        cursor: Cursor = None,
        limit: Limit = 20,
        consistent: Consistent = False,
        min_position: MinPosition = None,
        **path: str,
    ) -> Any:
        return await run_in_threadpool(
            read_side.history_page,
            history,
            principal,
            path[of.key],
            cursor=cursor,
            limit=limit,
            consistent=consistent,
            min_position=min_position,
        )

    _with_default(read, "limit", history.default_limit)
    _with_path(read, of.key, of.id_description)
    router.add_api_route(
        f"/{of.name}/{{{of.key}}}/{history.name}",
        read,
        methods=["GET"],
        response_model=Page[entry],  # type: ignore[valid-type]
        operation_id=history.operation_id or f"get_{history.name}",
        tags=[of.name],
        summary=f"Get {history.name}",
        description=f"The {history.name} of one {of.one}: what `{history.use_case.name}` "
        "answers, newest first, a page at a time.",
    )


def _record(router: APIRouter, route: Record) -> None:
    result = shown_model(item_type(route.use_case), route.example, route.doc)
    # The use case's other arguments are the query's parameters, checked by the use case.
    others = [name for name in route.use_case.model_fields if name != route.argument]

    async def read(
        read_side: ReadSideDep,
        principal: PrincipalDep,
        consistent: Consistent = False,
        **arguments: str | None,
    ) -> Any:
        asked = {name: value for name, value in arguments.items() if value is not None}
        return await run_in_threadpool(
            read_side.record, route, principal, asked, consistent=consistent
        )

    _with_path(read, route.argument, route.id_description)
    _with_query(read, {name: route.use_case.model_fields[name] for name in others})
    router.add_api_route(
        f"/{route.name}/{{{route.argument}}}",
        read,
        methods=["GET"],
        response_model=result,
        operation_id=route.use_case.name,
        tags=[route.name],
        summary=f"Get {route.one}",
        description=f"One {route.one}: what `{route.use_case.name}` answers (its other "
        "arguments as query parameters).",
    )


def _with_query(endpoint: Callable[..., Any], fields: dict[str, FieldInfo]) -> None:
    """The endpoint takes a query parameter for each of the use case's `fields`, required
    where the use case requires it (into its `**arguments`)."""
    signature = inspect.signature(endpoint)
    added = [
        inspect.Parameter(
            name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=inspect.Parameter.empty if field.is_required() else None,
            annotation=Annotated[
                str if field.is_required() else str | None,
                Query(description=field.description, max_length=256),
            ],
        )
        for name, field in fields.items()
    ]
    parameters = [*signature.parameters.values(), *added]
    required = [p for p in parameters if p.default is p.empty]
    endpoint.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*required, *(p for p in parameters if p.default is not p.empty)]
    )


def _with_default(endpoint: Callable[..., Any], name: str, default: object) -> None:
    """The endpoint's parameter `name` defaults to `default` (FastAPI reads the signature)."""
    signature = inspect.signature(endpoint)
    parameters = [
        p.replace(default=default) if p.name == name else p for p in signature.parameters.values()
    ]
    endpoint.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]


def _with_path(endpoint: Callable[..., Any], name: str, description: str) -> None:
    """The endpoint takes the path parameter `name` (into its `**path`)."""
    signature = inspect.signature(endpoint)
    parameters = list(signature.parameters.values())
    identifier = inspect.Parameter(
        name,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        annotation=Annotated[str, Path(description=description, max_length=64)],
    )
    positional = [p for p in parameters if p.default is p.empty and p.kind is not p.VAR_KEYWORD]
    optional = [p for p in parameters if p.default is not p.empty]
    endpoint.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*positional, identifier, *optional]
    )


async def events(
    read_side: ReadSideDep,
    principal: PrincipalDep,
    after: Annotated[int, Query(ge=0, le=2**62, description="Last position already seen.")] = 0,
    limit: Annotated[int, Query(ge=1, le=1000, description="At most this many events.")] = 100,
) -> list[LogEvent]:
    """The event log after a position (auditors and admins)."""
    return await run_in_threadpool(read_side.events, principal, after, limit)


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
