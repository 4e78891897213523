"""Dependencies, named once: route signatures then read like prose."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from application.principals import PrincipalView
from gateway.bootstrap import Sluice
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.read_side import ReadSide

bearer = HTTPBearer(auto_error=False, description="An API key: `Authorization: Bearer sk-...`")


def get_sluice(request: Request) -> Sluice:
    sluice: Sluice = request.app.state.sluice
    return sluice


def get_gateway(request: Request) -> Gateway:
    return get_sluice(request).gateway


def get_read_side(request: Request) -> ReadSide:
    read_side: ReadSide = request.app.state.read_side
    return read_side


def get_principal(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> PrincipalView:
    gateway = get_gateway(request)
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise GatewayError("unauthenticated", "send `Authorization: Bearer <api key>`")
    principal = gateway.authenticate(credentials.credentials)
    request.app.state.request_limiter.admit_request(principal)
    return principal


GatewayDep = Annotated[Gateway, Depends(get_gateway)]
ReadSideDep = Annotated[ReadSide, Depends(get_read_side)]
PrincipalDep = Annotated[PrincipalView, Depends(get_principal)]
SluiceDep = Annotated[Sluice, Depends(get_sluice)]
