"""Liveness (/livez), readiness (/readyz), and whether what the gateway depends on answers
(/health): a list of named checks.

/livez asks nothing: the process answers, so it need not be restarted. /readyz asks the
store alone (a load balancer sends no traffic to a process whose store does not answer;
a read model behind or an event set aside does not stop it serving).

Each check runs in a thread of its own (gateway/interfaces/http/probe.py), so /health answers within
a second even when the store hangs or the server's worker threads are all taken: a check
that does not answer in time is reported degraded. To add one, write a function of the
running Sluice that returns a Finding, and list it in CHECKS. With SLUICE_READ_DATABASE_URL,
/health asks the standby too, and gives its lag behind the primary.

Anyone gets the status and each check's name and status. The details (each check's detail
and facts: the log position, dead letters, the projection lag) go to an admin's or an
auditor's key only (gateway/interfaces/http/health_access.py): they tell how busy the ledger is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from gateway.bootstrap import Sluice
from gateway.interfaces.http.health_access import HealthAccess
from gateway.interfaces.http.probe import Finding, Probe
from gateway.interfaces.http.schemas import Health, HealthCheck, Liveness, Readiness

router = APIRouter(tags=["health"])
DEADLINE_SECONDS = 0.5


def store(sluice: Sluice) -> Finding:
    """The event store answers a query."""
    position = sluice.gateway.operations.log_position()
    return Finding(True, "reachable", {"log_position": position})


def read_models(sluice: Sluice) -> Finding:
    """The read models apply every event: none set aside (lag is reported, not judged)."""
    models = sluice.read_models
    letters = models.dead_letters()
    lag = models.head() - min(models.position(name) for name in models.names)
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


def standby(sluice: Sluice) -> Finding:
    """The standby of SLUICE_READ_DATABASE_URL answers the read side (its lag behind the
    primary is reported, not judged: reads that must see a position wait for it, or read
    the primary)."""
    queries = sluice.gateway.queries
    lag = None if queries is None else queries.routing.lag()
    assert lag is not None, "listed only with SLUICE_READ_DATABASE_URL"
    facts = {"standby_lag_events": lag.events, "standby_replay_lag_seconds": round(lag.seconds, 3)}
    return Finding(
        True,
        f"{lag.events} event(s) behind the primary's read models; its replay is "
        f"{lag.seconds:.3f} s behind",
        facts,
    )


CHECKS = (store, read_models)


def checks(sluice: Sluice) -> tuple[Callable[[Sluice], Finding], ...]:
    """What /health asks: the standby too, when the read side reads one."""
    return CHECKS if sluice.read_database_url is None else (*CHECKS, standby)


@router.get("/livez", response_model=Liveness, operation_id="livez")
async def livez() -> Liveness:
    """`ok` while the process answers: no check of the store (see /readyz)."""
    return Liveness(status="ok")


@router.get(
    "/readyz",
    response_model=Readiness,
    operation_id="readyz",
    responses={503: {"model": Readiness, "description": "The store did not answer in time"}},
)
async def readyz(request: Request) -> JSONResponse:
    """`ready` when the event store answers within half a second; `not ready` (503) else."""
    state = request.app.state
    probe: Probe[Sluice] = getattr(state, "readiness_probe", None) or Probe(
        "store", store, DEADLINE_SECONDS
    )
    state.readiness_probe = probe
    finding = await probe(state.sluice)
    body = Readiness(
        status="ready" if finding.ok else "not ready",
        checks=[HealthCheck(name="store", status="ok" if finding.ok else "degraded")],
    )
    return JSONResponse(body.model_dump(exclude_none=True), 200 if finding.ok else 503)


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
        Probe(check.__name__, check, DEADLINE_SECONDS) for check in checks(state.sluice)
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
