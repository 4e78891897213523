"""Liveness, and whether the store answers."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from gateway.http.deps import GatewayDep
from gateway.http.schemas import Health

router = APIRouter(tags=["health"])


@router.get(
    "/health",
    response_model=Health,
    operation_id="health",
    responses={503: {"model": Health, "description": "The store does not answer"}},
)
def health(gateway: GatewayDep) -> Health | JSONResponse:
    """`ok` when the store answers; `degraded` (503) when it does not."""
    try:
        position = gateway.ledger.recorder.max_notification_id()
    except Exception as error:
        body = Health(status="degraded", store=f"unreachable: {type(error).__name__}: {error}")
        return JSONResponse(body.model_dump(), status_code=503)
    return Health(status="ok", store="reachable", log_position=position)
