"""Dependencies, named once: route signatures then read like prose."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from application.principals import PrincipalView
from gateway.bootstrap import Sluice
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.policy.rate import RateLimiter
from gateway.core.read_side import ReadSide

T = TypeVar("T")
bearer = HTTPBearer(auto_error=False, description="An API key: `Authorization: Bearer sk-...`")


# The dependencies that only look something up are coroutines: FastAPI runs a plain
# function in its thread pool, and a hand-over to a worker thread costs more than most
# requests' own work. `get_principal` awaits the store where it can and hands over to a
# thread only where it must.
#
# For the same reason a route whose work blocks is a coroutine that awaits
# `run_in_threadpool` once: FastAPI hands a plain `def` route with a response model over to
# the pool twice, once to run it and once more to validate its answer. That check now runs
# on the loop: an isinstance where the answer is the response model's own class, and at
# most ~0.3 ms for a statement's page of 200 (its entries are the bank's, read by
# attribute), less than the hand-over; the answer is serialized on the loop either way.


def _sluice(request: Request) -> Sluice:
    sluice: Sluice = request.app.state.sluice
    return sluice


async def get_sluice(request: Request) -> Sluice:
    return _sluice(request)


async def get_gateway(request: Request) -> Gateway:
    return _sluice(request).gateway


async def get_read_side(request: Request) -> ReadSide:
    read_side: ReadSide = request.app.state.read_side
    return read_side


CLIENT_HEADER = "x-sluice-client"
# The console's sign-in, for the browser session: the key in a cookie that page scripts cannot
# read (HttpOnly), that no other site's page makes the browser send (SameSite=Strict), sent
# over TLS only when the console is (Secure), and gone when the browser closes (no expiry).
SESSION_COOKIE = "sluice_console"


Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]


async def get_principal(request: Request, credentials: Credentials) -> PrincipalView:
    """The key's principal, counted against its request cap. A key this process remembers is
    checked on the event loop where the store reads asynchronously (Postgres); otherwise in
    one thread of the pool, as a plain dependency would be."""
    gateway = _sluice(request).gateway
    limiter: RateLimiter = request.app.state.request_limiter
    key, interface = _key_of(request, credentials)
    principal = await gateway.async_admitted(key, interface, limiter)
    if principal is not None:
        return principal
    return await run_in_threadpool(_admitted, gateway, limiter, key, interface, principal)


async def admitted_reading(
    request: Request,
    credentials: HTTPAuthorizationCredentials | None,
    read: Callable[[PrincipalView], Awaitable[T | None]],
) -> tuple[PrincipalView, T | None]:
    """The key's principal, as `get_principal` admits it, and what `read` answers for it.

    For a key this process remembers, the read starts beside the admission's statement,
    for the principal remembered, instead of after it: one round trip's wait instead of
    two. Its answer (or refusal) counts only if the admission admits that very principal;
    else it is dropped, and the read is made again for the principal admitted."""
    gateway = _sluice(request).gateway
    limiter: RateLimiter = request.app.state.request_limiter
    key, interface = _key_of(request, credentials)
    remembered = gateway.remembered(key, interface) if limiter.admits_async else None
    if remembered is None:
        principal = await get_principal(request, credentials)
        return principal, await read(principal)
    admitted, answered = await asyncio.gather(
        gateway.async_admitted(key, interface, limiter), _outcome(read(remembered))
    )
    if admitted is None:
        admitted = await run_in_threadpool(_admitted, gateway, limiter, key, interface, None)
    if admitted != remembered:
        return admitted, await read(admitted)
    value, refused = answered
    if refused is not None:
        raise refused
    return admitted, value


async def _outcome(read: Awaitable[T]) -> tuple[T | None, Exception | None]:
    """What `read` answers, or the error it raises, both kept for later."""
    try:
        return await read, None
    except Exception as error:
        return None, error


def _key_of(request: Request, credentials: HTTPAuthorizationCredentials | None) -> tuple[str, str]:
    """The API key the request carries, and the interface it came by; `unauthenticated`
    when it carries none."""
    # The console says it is the console; the header is a label for the record, not a
    # credential (the key and its scope decide what may be done).
    console = request.headers.get(CLIENT_HEADER) == "console"
    if credentials is None and console and request.cookies.get(SESSION_COOKIE):
        # The console's session. The header is required with the cookie: a page of another
        # origin cannot send it without a CORS preflight, which this API never grants.
        key = request.cookies[SESSION_COOKIE]
    elif credentials is None or credentials.scheme.lower() != "bearer":
        raise GatewayError("unauthenticated", "send `Authorization: Bearer <api key>`")
    else:
        key = credentials.credentials
    return key, "console" if console else "http"


def _admitted(
    gateway: Gateway,
    limiter: RateLimiter,
    key: str,
    interface: str,
    principal: PrincipalView | None,
) -> PrincipalView:
    if principal is None:
        principal = gateway.authenticate(key, interface)
    limiter.admit_request(principal)
    return principal


GatewayDep = Annotated[Gateway, Depends(get_gateway)]
ReadSideDep = Annotated[ReadSide, Depends(get_read_side)]
PrincipalDep = Annotated[PrincipalView, Depends(get_principal)]
SluiceDep = Annotated[Sluice, Depends(get_sluice)]
