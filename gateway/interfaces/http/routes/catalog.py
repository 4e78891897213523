"""The directory and the sheets, as this principal may see them."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import PlainTextResponse

from gateway.interfaces.http.deps import GatewayDep, PrincipalDep
from gateway.interfaces.http.schemas import PROBLEMS, PlanSchema, Sheet

router = APIRouter(prefix="/v1", tags=["catalog"], responses=PROBLEMS)


@router.get(
    "/directory",
    response_class=PlainTextResponse,
    operation_id="directory",
    # Its example is the served domain's (gateway/interfaces/http/domain_examples.py).
    responses={200: {"content": {"text/plain": {"example": "- name [read] ..."}}}},
)
def directory(gateway: GatewayDep, principal: PrincipalDep) -> str:
    """One line per use case this principal may call: its name, whether it reads or writes,
    and what it does."""
    return gateway.directory(principal)


@router.get("/actions", response_model=list[Sheet], operation_id="actions")
def actions(
    gateway: GatewayDep,
    principal: PrincipalDep,
    name: Annotated[list[str] | None, Query(description="Use case names; none for all.")] = None,
) -> list[Sheet]:
    """The full sheets: name, description, kind, JSON Schema of parameters and result."""
    names = name or list(gateway.catalog_for(principal).names)
    return gateway.sheets(principal, names)


@router.get("/plan-schema", response_model=PlanSchema, operation_id="plan_schema")
def plan_schema(gateway: GatewayDep, principal: PrincipalDep) -> dict[str, Any]:
    """The JSON Schema a plan must satisfy, generated from this principal's use cases."""
    # A JSON Schema document is free JSON: it stays a dict.
    return gateway.plan_schema(principal)
