"""Liveness, and whether what the gateway depends on answers: a list of named checks.

Each check runs in a thread of its own (gateway/interfaces/http/probe.py), so /health answers within
a second even when the store hangs or the server's worker threads are all taken: a check
that does not answer in time is reported degraded. To add one, write a function of the
running Sluice that returns a Finding, and list it in CHECKS.

Anyone gets the status and each check's name and status. The details (each check's detail
and facts: the log position, dead letters, the projection lag) go to an admin's or an
auditor's key only (gateway/interfaces/http/health_access.py): they tell how busy the ledger is.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from application.read_models.store import PROJECTIONS
from gateway.bootstrap import Sluice
from gateway.interfaces.http.health_access import HealthAccess
from gateway.interfaces.http.probe import Finding, Probe
from gateway.interfaces.http.schemas import Health

router = APIRouter(tags=["health"])
DEADLINE_SECONDS = 0.5


def store(sluice: Sluice) -> Finding:
    """The event store answers a query."""
    position = sluice.ledger.recorder.max_notification_id()
    return Finding(True, "reachable", {"log_position": position})


def read_models(sluice: Sluice) -> Finding:
    """The read models apply every event: none set aside (lag is reported, not judged)."""
    models = sluice.read_models
    letters = models.dead_letters()
    lag = models.head() - min(models.position(name) for name in PROJECTIONS)
    facts = {"dead_letters": len(letters), "projection_lag": lag}
    if letters:
        first = letters[0]
        return Finding(
            False,
            f"{len(letters)} event(s) set aside by the projections, the first at position "
            f"{first.position} ({first.projection}); `sluice audit verify` lists them, "
            "`sluice replay --swap` repairs once their cause is fixed",
            facts,
        )
    return Finding(True, f"{lag} event(s) behind the log", facts)


CHECKS = (store, read_models)


@router.get(
    "/health",
    response_model=Health,
    operation_id="health",
    responses={503: {"model": Health, "description": "A check failed or did not answer"}},
)
async def health(request: Request) -> JSONResponse:
    """`ok` when every check passes; `degraded` (503) naming the ones that did not. With an
    admin's or auditor's key, each check's detail and facts too."""
    state = request.app.state
    probes: list[Probe[Sluice]] = getattr(state, "health_probes", None) or [
        Probe(check.__name__, check, DEADLINE_SECONDS) for check in CHECKS
    ]
    state.health_probes = probes
    access: HealthAccess = getattr(state, "health_access", None) or HealthAccess(
        state.sluice.gateway.authenticate, DEADLINE_SECONDS
    )
    state.health_access = access
    details, findings = await asyncio.gather(
        access.sees_details(request.headers.get("authorization")),
        asyncio.gather(*(probe(state.sluice) for probe in probes)),
    )
    ok = all(finding.ok for finding in findings)
    status = 200 if ok else 503
    body: dict[str, Any] = {"status": "ok" if ok else "degraded"}
    if not details:
        body["checks"] = [
            {"name": p.name, "status": "ok" if f.ok else "degraded"}
            for p, f in zip(probes, findings, strict=True)
        ]
        return JSONResponse(Health.model_validate(body).model_dump(exclude_none=True), status)
    for probe, finding in zip(probes, findings, strict=True):
        body[probe.name] = finding.detail if finding.ok else f"unavailable: {finding.detail}"
        body.update(finding.facts)
    body["checks"] = [
        {"name": p.name, "status": "ok" if f.ok else "degraded", "detail": f.detail}
        for p, f in zip(probes, findings, strict=True)
    ]
    return JSONResponse(Health.model_validate(body).model_dump(), status)
