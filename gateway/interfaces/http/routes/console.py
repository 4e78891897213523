"""What the console needs beyond the public API: its sign-in for the browser session, who is
signed in, the served domain's listings (`resources`), and a record's movements with the
run that made each one (the audit trail's links: the bank's account timeline).

The reads go through the same policy as the domain's own resources under /v1.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response
from fastapi.security import HTTPAuthorizationCredentials
from pydantic import BaseModel, Field

from application.read_routes import History, Listing, item_type
from gateway.core.errors import GatewayError
from gateway.core.paging import Page, page_of
from gateway.core.policy.decisions import may_read_any_run, may_read_events, visible_owned
from gateway.demo import demo_agent_keys, demo_keys
from gateway.interfaces.http.deps import (
    SESSION_COOKIE,
    PrincipalDep,
    ReadSideDep,
    bearer,
)
from gateway.interfaces.http.paging import Cursor, Limit, MinPosition
from gateway.interfaces.http.schemas import PROBLEMS

router = APIRouter(prefix="/v1/console", tags=["console"], responses=PROBLEMS)
RecordId = Annotated[str, Path(description="A record's id, e.g. alice.", max_length=64)]


class Me(BaseModel):
    name: str
    role: str
    accounts: list[str] | None = Field(
        description="The ids this principal owns (`owned` says what they are) when it "
        "reaches only those; null: all."
    )
    owned: str = Field(description="What those ids are, in the served domain's words.")
    audits: bool = Field(description="Whether it may read the event log and any run.")
    scope: str = Field(
        description="human: this key may confirm; agent: it may propose, never confirm."
    )


class TimelineEntry(BaseModel):
    position: int = Field(description="The event's position in the log.")
    version: int
    kind: str
    amount: str = Field(description="Signed euros, two decimals, as text.")
    balance: str = Field(description="The balance after this movement.")
    counterparty: str | None
    memo: str
    timestamp: str
    run_id: str | None = Field(description="The run that committed this event.")


class DemoKey(BaseModel):
    name: str
    role: str
    key: str = Field(description="The person's key: proposes and confirms.")
    agent_key: str = Field(description="The person's agent's key: proposes, never confirms.")


class SignInHelp(BaseModel):
    """What the sign-in page says of keys: where one comes from, and in demo mode (`sluice
    serve --demo`, `make run`) the demo keys, well known and printed at start anyway."""

    demo: bool
    demo_keys: list[DemoKey]
    where_keys_come_from: str


KEYS_COME_FROM = (
    "An operator issues each person a key with: sluice principal add NAME --role ROLE, or "
    "sluice principal key NAME. It is printed once."
)


class Resource(BaseModel):
    """A listing the served domain derives from a read use case: what its audit page shows."""

    name: str = Field(description="Its path under /v1.")
    key: str = Field(description="The field of each record that names it.")
    one: str = Field(description="One record, in the domain's words.")
    fields: list[str] = Field(description="The fields of a record, in order.")
    timeline: bool = Field(
        description="Whether /v1/console/{name}/{id}/timeline tells a record's movements."
    )


@router.get("/resources", response_model=list[Resource], operation_id="console_resources")
def resources(request: Request, principal: PrincipalDep) -> Any:
    """The served domain's listings, for the audit page (any signed-in principal)."""
    del principal
    routes = request.app.state.sluice.domain.read_routes
    timelines = {r.of.name for r in routes if isinstance(r, History) and r.rows is not None}
    return [
        Resource(
            name=route.name,
            key=route.key,
            one=route.one,
            fields=list(item_type(route.use_case).model_fields),
            timeline=route.name in timelines,
        )
        for route in routes
        if isinstance(route, Listing)
    ]


@router.get("/sign-in", response_model=SignInHelp, operation_id="console_sign_in_help")
def sign_in_help(request: Request) -> Any:
    """Where keys come from, and the demo keys in demo mode. Asks no key."""
    demo = bool(getattr(request.app.state, "demo", False))
    keys = []
    if demo:
        seeded = request.app.state.sluice.domain.demo
        agent_keys = demo_agent_keys(seeded)
        keys = [
            DemoKey(name=p.name, role=p.role, key=key, agent_key=agent_keys[p.name])
            for p, key in zip(seeded.principals, demo_keys(seeded).values(), strict=True)
        ]
    return SignInHelp(demo=demo, demo_keys=keys, where_keys_come_from=KEYS_COME_FROM)


@router.get("/me", response_model=Me, operation_id="console_me")
def me(request: Request, principal: PrincipalDep) -> Any:
    """The signed-in principal: its name, role and reach."""
    visible = visible_owned(principal)
    return Me(
        name=principal.name,
        role=principal.role,
        accounts=None if visible is None else sorted(visible),
        owned=request.app.state.sluice.domain.owned_words.many,
        audits=may_read_events(principal) and may_read_any_run(principal),
        scope=principal.scope,
    )


@router.post("/session", response_model=Me, operation_id="console_sign_in")
def sign_in(
    request: Request,
    response: Response,
    principal: PrincipalDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Any:
    """Sign the browser in with the key of the `Authorization` header: the answer sets the
    console's session cookie (HttpOnly, SameSite=Strict, Secure over https, ended with the
    browser session), which every tab then sends with `X-Sluice-Client: console`."""
    if credentials is None:  # a session cannot start from a session: a key is shown anew
        raise GatewayError("unauthenticated", "sign in with `Authorization: Bearer <api key>`")
    response.set_cookie(
        SESSION_COOKIE,
        credentials.credentials,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/v1/",
    )
    return me(request, principal)


@router.delete("/session", status_code=204, operation_id="console_sign_out")
def sign_out(request: Request) -> Response:
    """Sign the browser out: the session cookie is cleared. Asks no key (signing out of a
    revoked key's session must work)."""
    response = Response(status_code=204)
    response.delete_cookie(
        SESSION_COOKIE,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/v1/",
    )
    return response


@router.get(
    "/{listing}/{record}/timeline",
    response_model=Page[TimelineEntry],
    operation_id="console_timeline",
)
def timeline(
    request: Request,
    read_side: ReadSideDep,
    principal: PrincipalDep,
    listing: Annotated[str, Path(description="One of the domain's listings.", max_length=64)],
    record: RecordId,
    cursor: Cursor = None,
    limit: Limit = 100,
    min_position: MinPosition = None,
) -> Any:
    """A record's movements, newest first, each with its log
    position and run, a page at a time.

    Read consistently: every event committed before this request is in it."""
    history = _timeline(request, listing)
    account = record
    rows = read_side.history_rows(
        history,
        principal,
        account,
        cursor=cursor,
        limit=limit,
        consistent=True,
        min_position=min_position,
    )
    page = page_of(rows, limit, f"{history.name}:{account}", lambda row: row.version)
    return Page[TimelineEntry](
        items=[
            TimelineEntry(
                position=row.position,
                version=row.version,
                kind=row.kind,
                amount=f"{row.amount:.2f}",
                balance=f"{row.balance:.2f}",
                counterparty=row.counterparty,
                memo=row.memo,
                timestamp=row.time,
                run_id=row.run_id,
            )
            for row in page.items
        ],
        next_cursor=page.next_cursor,
    )


def _timeline(request: Request, listing: str) -> History:
    """The served domain's history of the listing's records that the timeline shows (the
    bank's statement of an account); 404 if it keeps none."""
    for route in request.app.state.sluice.domain.read_routes:
        if isinstance(route, History) and route.rows is not None and route.of.name == listing:
            return route
    raise GatewayError("not-found", f"no timeline of {listing}: the served domain keeps none")
