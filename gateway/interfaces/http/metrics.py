"""`/metrics` in the Prometheus text format (prometheus-client), for an admin's or auditor's
key.

Counted by this process as it serves: requests by method, route (the route's template,
`/v1/accounts/{account}`, never the path a client sent) and status; their latency; the
sandbox's programs by how they ended, and those running or waiting for a worker now.
Read from the store at each scrape (what every process shares): proposals by state (the
runs read model), each read model's lag behind the log, dead letters, the log's position,
and whether the store answered (`sluice_store_up`); with SLUICE_READ_DATABASE_URL, whether
the standby answered and how far behind the primary it is (`sluice_standby_*`); and this
process's reads of the read models by the server that answered them. The store's figures
are kept for STORE_SECONDS, so frequent scrapes cost the store one read of them at most
that often.

Why a key: the figures tell how busy the ledger is (proposals, log position), which
/health keeps from anyone without a key too. Prometheus sends one with `authorization`
(`credentials_file`) in its scrape configuration.
"""

from __future__ import annotations

import threading
import time
from collections import Counter as Tally
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import Response
from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.registry import Collector

from application.read_models.routing import PRIMARY, STANDBY, ReadRouting, StandbyLag
from gateway.bootstrap import Sluice
from gateway.core.errors import GatewayError
from gateway.core.policy.decisions import sees_health_details
from gateway.interfaces.http.deps import PrincipalDep
from gateway.interfaces.http.schemas import PROBLEMS

STORE_SECONDS = 5.0
UNMATCHED = "(unmatched)"
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)

router = APIRouter(tags=["health"])


class HttpMetrics:
    """The app's own registry (not the process-wide default: each app counts its own)."""

    def __init__(self, sluice: Sluice) -> None:
        # Not auto_describe: that would read the store once at registration, at start.
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "sluice_http_requests",
            "HTTP requests answered, by method, route template and status.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "sluice_http_request_duration_seconds",
            "Time from a request's start to its answer's end, by method and route template.",
            ["method", "route"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.registry.register(SluiceCollector(sluice))

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(method, route).observe(seconds)


@dataclass
class StoreFigures:
    up: bool
    proposals: dict[str, int] = field(default_factory=dict)
    lag: dict[str, int] = field(default_factory=dict)
    dead_letters: int = 0
    log_position: int = 0
    # With SLUICE_READ_DATABASE_URL: whether the standby answered, and its lag.
    standby: StandbyLag | Literal["down"] | None = None


class SluiceCollector(Collector):
    def __init__(self, sluice: Sluice) -> None:
        self.sluice = sluice
        self._lock = threading.Lock()
        self._figures: tuple[float, StoreFigures] | None = None

    def collect(self) -> Iterable[Metric]:
        yield from self._sandbox()
        yield from self._reads()
        figures = self._store_figures()
        yield from self._store(figures)
        yield from self._standby(figures.standby)

    def _reads(self) -> Iterator[Metric]:
        reads = CounterMetricFamily(
            "sluice_read_model_reads",
            "Reads of the read models by this process, by the server that answered: the "
            "standby (SLUICE_READ_DATABASE_URL), or the primary.",
            labels=["server"],
        )
        served = self._routing.served if self._routing is not None else {}
        for server in (PRIMARY, STANDBY):
            reads.add_metric([server], served.get(server, 0))
        yield reads

    @property
    def _routing(self) -> ReadRouting | None:
        queries = self.sluice.gateway.queries
        return None if queries is None else queries.routing

    def _standby(self, lag: StandbyLag | Literal["down"] | None) -> Iterator[Metric]:
        if lag is None:
            return  # no standby
        up = GaugeMetricFamily("sluice_standby_up", "1 when the standby answered the scrape.")
        up.add_metric([], 0 if lag == "down" else 1)
        yield up
        if lag == "down":
            return
        events = GaugeMetricFamily(
            "sluice_standby_lag_events",
            "Log positions the standby's read models are behind the primary's.",
        )
        events.add_metric([], lag.events)
        seconds = GaugeMetricFamily(
            "sluice_standby_replay_lag_seconds",
            "How far behind the primary the standby's replay is (0 when it has replayed "
            "all it received).",
        )
        seconds.add_metric([], lag.seconds)
        yield from (events, seconds)

    def _sandbox(self) -> Iterator[Metric]:
        if "sandbox" not in self.sluice.__dict__:
            snapshot = None  # no program has run here: the pool is not even started
        else:
            snapshot = self.sluice.sandbox.stats.snapshot()
        running = GaugeMetricFamily(
            "sluice_sandbox_programs_running", "Programs running in the sandbox now."
        )
        waiting = GaugeMetricFamily(
            "sluice_sandbox_programs_waiting", "Programs waiting for a sandbox worker now."
        )
        ended = CounterMetricFamily(
            "sluice_sandbox_runs",
            "Programs the sandbox ran, by outcome: ok, failed (a check, a refusal, an "
            "error), limit (a cap on time, memory or calls), busy (no worker in time).",
            labels=["outcome"],
        )
        running.add_metric([], snapshot.running if snapshot else 0)
        waiting.add_metric([], snapshot.waiting if snapshot else 0)
        for outcome in ("ok", "failed", "limit", "busy"):
            ended.add_metric([outcome], snapshot.ended.get(outcome, 0) if snapshot else 0)
        yield from (running, waiting, ended)

    def _store_figures(self) -> StoreFigures:
        with self._lock:
            now = time.monotonic()
            if self._figures is not None and now - self._figures[0] < STORE_SECONDS:
                return self._figures[1]
            figures = self._read_store()
            self._figures = (now, figures)
            return figures

    def _read_store(self) -> StoreFigures:
        models = self.sluice.read_models
        try:
            head = models.head()
            lag = {name: max(head - models.position(name), 0) for name in models.names}
            proposals = Tally(row.status for row in models.store.runs() if row.kind == "program")
            letters = len(models.dead_letters())
        except Exception:  # the store is away: say so, and no figure from it
            return StoreFigures(up=False, standby=self._standby_lag())
        return StoreFigures(True, dict(proposals), lag, letters, head, self._standby_lag())

    def _standby_lag(self) -> StandbyLag | Literal["down"] | None:
        routing = self._routing
        if routing is None or routing.standby is None:
            return None
        try:
            return routing.lag()
        except Exception:  # the standby (or the primary, to compare with) is away
            return "down"

    def _store(self, figures: StoreFigures) -> Iterator[Metric]:
        up = GaugeMetricFamily("sluice_store_up", "1 when the event store answered the scrape.")
        up.add_metric([], 1 if figures.up else 0)
        yield up
        if not figures.up:
            return
        proposals = GaugeMetricFamily(
            "sluice_proposals",
            "Programs proposed, by state in the runs read model (pending, committed, "
            "rejected, expired, failed, ...).",
            labels=["state"],
        )
        for state, count in sorted(figures.proposals.items()):
            proposals.add_metric([state], count)
        lag = GaugeMetricFamily(
            "sluice_read_model_lag_events",
            "Events of the log a read model has not applied yet.",
            labels=["projection"],
        )
        for name, behind in figures.lag.items():
            lag.add_metric([name], behind)
        letters = GaugeMetricFamily(
            "sluice_dead_letters", "Events the read models set aside (`sluice audit verify`)."
        )
        letters.add_metric([], figures.dead_letters)
        position = GaugeMetricFamily("sluice_log_position", "The last position of the event log.")
        position.add_metric([], figures.log_position)
        yield from (proposals, lag, letters, position)


@router.get(
    "/metrics",
    operation_id="metrics",
    response_class=Response,
    responses={
        200: {"content": {CONTENT_TYPE_LATEST: {"schema": {"type": "string"}}}},
        **{status: PROBLEMS[status] for status in (401, 403, 429)},
    },
)
def metrics(request: Request, principal: PrincipalDep) -> Response:
    """The Prometheus text format; an admin's or auditor's key."""
    if not sees_health_details(principal):
        raise GatewayError(
            "forbidden",
            f"/metrics may be read by auditors and admins, not principal {principal.name}",
        )
    registry: CollectorRegistry = request.app.state.metrics.registry
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
