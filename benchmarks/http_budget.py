"""What the HTTP targets (a direct transfer at 0.4 of the bare endpoint, propose+confirm at
0.25) leave the server for one operation, beside what the operation's own work costs.

The server is one Python process: whatever the clients and the database leave free, it runs
its Python on one core at a time. Served flat out, the bare endpoint and every workload hold
it at the same share of a core (`core`: server CPU x rate), so the ratio of their rates is
the inverse ratio of their server CPU per operation, and a target ratio is a CPU budget:

- `bare`: the server's CPU ms for one bare request (uvicorn, FastAPI, our middleware);
- `budget`: `bare / target`, the server CPU one operation may cost to reach the target;
- `http`: `bare` times the requests the operation makes, the serving alone;
- `in process`: the operation's own work, measured in process with no HTTP, no projector
  and no authentication (`benchmarks.bench_call.cpu_per_operation`; the sandbox's workers
  included), one operation at a time;
- `floor`: `http + in process`, what the server would spend with the projector and the
  authentication free;
- `served`: what it spent in the run;
- `cut`: how many times cheaper the in-process work must become for the floor to fit the
  budget (`in process / (budget - http)`), `-` when the serving alone is over budget, and
  `ok` when the floor fits.
"""

from __future__ import annotations

from dataclasses import dataclass

# The workloads of issue 19's HTTP targets: the ratio each must reach, its requests.
TARGETS = {"direct transfer": (0.4, 1), "propose+confirm": (0.25, 2)}


@dataclass(frozen=True)
class Served:
    """One workload's figures from the run: its req/s and the server's CPU ms an operation."""

    rate: float
    server: float

    @property
    def core(self) -> float:
        """The share of a core the server process used while serving it."""
        return self.rate * self.server / 1e3


def header() -> str:
    return (
        f"{'store':<10}{'workload':<18}{'target':>7}{'bare':>6}{'core':>6}{'budget':>8}"
        f"{'http':>6}{'in process':>12}{'floor':>7}{'served':>8}{'core':>6}{'cut':>6}"
    )


def row(kind: str, workload: str, *, bare: Served, served: Served, in_process: float) -> str:
    """One line of the budget table; CPU figures in ms an operation."""
    target, requests = TARGETS[workload]
    budget = bare.server / target
    http = bare.server * requests
    floor = http + in_process
    if floor <= budget:
        cut = "ok"
    elif budget > http:
        cut = f"{in_process / (budget - http):.1f}"
    else:
        cut = "-"
    return (
        f"{kind:<10}{workload:<18}{target:>7.2f}{bare.server:>6.2f}{bare.core:>6.2f}"
        f"{budget:>8.2f}{http:>6.2f}{in_process:>12.2f}{floor:>7.2f}{served.server:>8.2f}"
        f"{served.core:>6.2f}{cut:>6}"
    )
