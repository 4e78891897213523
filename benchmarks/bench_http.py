"""`make bench-http`: requests/s and p50/p99 latency through the HTTP API, each beside a bare
FastAPI endpoint served by the same process in the same run, on SQLite and on Postgres.

Then the cost of the per-minute caps being counted in the store: an authenticated GET
served with the counters in the store against the same GET from a server whose counters
are in its own memory (as they were before), and the admission alone, in microseconds,
on each store (`benchmarks.bench_rate`).

Then one server bound to one CPU (`sluice serve --cpu`) beside one unbound, taking turns:
every workload and the bare endpoint on each.

Beside each figure of the first table, what one operation cost the machine in CPU time: the
server (with its sandbox workers), the database server and the clients (this process), and
the throughput those costs allow if every core of the machine did nothing else
(`ceiling`, and `of bare`: the ceiling over the bare endpoint's measured rate).

Then, for the HTTP targets (a direct transfer at 0.4 of the bare endpoint, propose+confirm at
0.25), the server CPU each target leaves one operation, beside what the serving and the
operation's own work cost (`benchmarks.http_budget`).

Last, the projector in the server's process beside in a process of its own
(`benchmarks.http_projector`).

    python -m benchmarks.bench_http [--seconds 5] [--clients 8] [--store sqlite|postgres|both]

Postgres comes from SLUICE_TEST_DATABASE_URL (default postgresql://postgres@127.0.0.1/postgres);
the benchmark works in a schema of its own and drops it afterwards.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Collection, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

from benchmarks import bench_call, bench_rate, cpu_time, http_budget, http_projector
from benchmarks.http_server import ACCOUNTS
from gateway.interfaces.process_cpu import allowed_cpus
from tests.served import served_process
from tests.stores import empty_store

Operation = Callable[[httpx.Client], None]
ALICE = {"Authorization": "Bearer sk-demo-alice"}
TELLER = {"Authorization": "Bearer sk-demo-teller"}


def bare(client: httpx.Client) -> None:
    _ok(client.get("/bare"))


def get_balance(client: httpx.Client) -> None:
    _ok(client.get("/v1/accounts/alice", headers=ALICE))


def direct_transfer(client: httpx.Client) -> None:
    payer, payee = random.sample(ACCOUNTS, 2)
    body = {"payer": payer, "payee": payee, "amount": 1}
    response = client.post("/v1/use-cases/transfer", headers=TELLER, json=body)
    if response.status_code != 409:  # a concurrent transfer on the same account: refused whole
        _ok(response)


def propose_and_confirm(client: httpx.Client) -> None:
    payer, payee = random.sample(ACCOUNTS, 2)
    source = f'transfer(payer="{payer}", payee="{payee}", amount=1)'
    proposal = client.post(
        "/v1/programs", headers=TELLER, json={"language": "python", "source": source}
    )
    _ok(proposal)
    body = proposal.json()
    confirmed = client.post(
        f"/v1/programs/{body['id']}/confirm",
        headers=TELLER,
        json={"preview_hash": body["preview_hash"]},
    )
    if confirmed.status_code != 409:
        _ok(confirmed)


def _ok(response: httpx.Response) -> None:
    if response.status_code >= 400:
        raise RuntimeError(f"{response.request.url}: {response.status_code} {response.text[:200]}")


def measure(
    base: str, operation: Operation, clients: int, seconds: float
) -> tuple[float, float, float]:
    """Operations per second, p50 and p99 latency in ms, from `clients` threads."""
    latencies: list[float] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker() -> None:
        mine = []
        with httpx.Client(base_url=base, timeout=30) as client:
            while time.monotonic() < stop:
                start = time.perf_counter()
                operation(client)
                mine.append(time.perf_counter() - start)
        with lock:
            latencies.extend(mine)

    started = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return len(ordered) / elapsed, statistics.median(ordered) * 1e3, p99 * 1e3


@contextmanager
def served(database_url: str, rate_limits: str = "store", cpu: int | None = None) -> Iterator[str]:
    with served_with_pid(database_url, rate_limits, cpu) as (base, _):
        yield base


@contextmanager
def served_with_pid(
    database_url: str,
    rate_limits: str = "store",
    cpu: int | None = None,
    *,
    projector: bool = True,
) -> Iterator[tuple[str, int]]:
    bound = ["--cpu", str(cpu)] if cpu is not None else []
    apart = [] if projector else ["--no-projector"]
    argv = [sys.executable, "-m", "benchmarks.http_server", "--database-url", database_url,
            "--rate-limits", rate_limits, *bound, *apart]  # fmt: skip
    with served_process(argv, dict(os.environ)) as (base, process):
        yield base, process.pid


def costed(
    base: str,
    operation: Operation,
    clients: int,
    seconds: float,
    server: int,
    *,
    others: Collection[int] = (),
) -> tuple[tuple[float, float, float], dict[str, float]]:
    """`measure`, and the CPU ms one operation cost the server, the database and the clients.

    The server's figure counts its process tree and those of `others` (a projector's)."""
    groups: dict[str, cpu_time.Pids] = {
        "server": lambda: set().union(*map(cpu_time.process_tree, (server, *others))),
        "db": cpu_time.postgres_pids,
        "clients": lambda: [os.getpid()],
    }
    result: list[tuple[float, float, float]] = []
    started = time.monotonic()
    spent = cpu_time.spent(
        groups, lambda: result.append(measure(base, operation, clients, seconds))
    )
    operations = result[0][0] * (time.monotonic() - started)
    return result[0], {name: value / operations * 1e3 for name, value in spent.items()}


@contextmanager
def store(kind: str) -> Iterator[str]:
    """An empty store of the kind, in a temporary folder or a schema, gone afterwards."""
    with tempfile.TemporaryDirectory() as folder, empty_store(kind, Path(folder)) as url:
        yield url


WORKLOADS: list[tuple[str, Operation]] = [
    ("GET balance", get_balance),
    ("direct transfer", direct_transfer),
    ("propose+confirm", propose_and_confirm),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--store", choices=["sqlite", "postgres", "both"], default="both")
    args = parser.parse_args()
    kinds = ["sqlite", "postgres"] if args.store == "both" else [args.store]
    cores = len(allowed_cpus()) or os.cpu_count() or 1
    print(f"{args.clients} clients, {args.seconds:g} s per workload; ratio = workload / bare")
    print(f"CPU ms per operation: server, database, clients; ceiling = {cores} cores / their sum\n")
    print(f"{'store':<10}{'workload':<18}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}"
          f"{'bare req/s':>12}{'ratio':>7}{'server':>8}{'db':>6}{'clients':>8}"
          f"{'ceiling':>9}{'of bare':>8}")  # fmt: skip
    budgets: list[str] = []
    for kind in kinds:
        served_costs: dict[str, http_budget.Served] = {}
        with store(kind) as url, served_with_pid(url) as (base, pid):
            for name, operation in [("bare", bare), *WORKLOADS]:
                baseline = measure(base, bare, args.clients, args.seconds)
                result, cost = costed(base, operation, args.clients, args.seconds, pid)
                served_costs[name] = http_budget.Served(result[0], cost["server"])
                ceiling = cores / sum(cost.values()) * 1e3
                print(f"{kind:<10}{name:<18}{result[0]:>9.0f}{result[1]:>9.1f}{result[2]:>9.1f}"
                      f"{baseline[0]:>12.0f}{result[0] / baseline[0]:>7.2f}{cost['server']:>8.2f}"
                      f"{cost['db']:>6.2f}{cost['clients']:>8.2f}{ceiling:>9.0f}"
                      f"{ceiling / baseline[0]:>8.2f}")  # fmt: skip
        budgets += budget_rows(kind, served_costs)
    print(f"\n{http_budget.__doc__}")
    print(http_budget.header())
    print("\n".join(budgets))
    print(
        "\nRate limits counted in the store, against counted in the server's memory: GET "
        "balance,\nthe two servers taking turns (memory, store, memory, store), best of each"
    )
    print(f"{'store':<10}{'counters':<18}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}")
    for kind in kinds:
        with (
            store(kind) as memory_url, served(memory_url, "memory") as memory,
            store(kind) as store_url, served(store_url, "store") as stored,
        ):  # fmt: skip
            turns: dict[str, list[tuple[float, float, float]]] = {"memory": [], "store": []}
            for _ in range(2):
                for counters, base in (("memory", memory), ("store", stored)):
                    turns[counters].append(measure(base, get_balance, args.clients, args.seconds))
            for counters, results in turns.items():
                best = max(results)
                print(f"{kind:<10}{counters:<18}{best[0]:>9.0f}{best[1]:>9.1f}{best[2]:>9.1f}")
    print()
    bench_rate.report(kinds, seconds=min(args.seconds, 2.0))
    print()
    bound_beside_unbound(kinds, args.clients, args.seconds)
    print()
    projector_apart(kinds, args.clients, args.seconds)


def budget_rows(kind: str, served_costs: dict[str, http_budget.Served]) -> list[str]:
    """The budget lines of one store: the served figures beside the in-process costs."""
    # The in-process gateway is one principal's many programs, as the served one is.
    os.environ.setdefault("SLUICE_CAP_PROGRAMS_PER_MINUTE", "100000000")
    with ExitStack() as stack:
        in_process = bench_call.cpu_per_operation(bench_call.opened(stack, kind, True), kind)
    return [
        http_budget.row(
            kind,
            workload,
            bare=served_costs["bare"],
            served=served_costs[workload],
            in_process=in_process[workload][0],
        )
        for workload in http_budget.TARGETS
    ]


# A served side: its base URL, its server's pid and the pids of its other processes.
Side = tuple[str, int, tuple[int, ...]]


def best_turns(
    sides: dict[str, Side], operation: Operation, clients: int, seconds: float, rounds: int = 2
) -> dict[str, tuple[float, dict[str, float]]]:
    """The sides taking turns (in turn order, then reversed): each side's best turn, its
    req/s and the CPU ms one operation cost each group of processes (see `costed`)."""
    best: dict[str, tuple[float, dict[str, float]]] = {}
    for turn in range(rounds):
        for side in list(sides) if turn % 2 == 0 else list(sides)[::-1]:
            base, pid, others = sides[side]
            (rate, _, _), cost = costed(base, operation, clients, seconds, pid, others=others)
            if side not in best or rate > best[side][0]:
                best[side] = (rate, cost)
    return best


def bound_beside_unbound(kinds: list[str], clients: int, seconds: float) -> None:
    """One server on one CPU, one unbound, taking turns twice; the better turn of each."""
    cpu = max(allowed_cpus(), default=None)
    if cpu is None:
        print("one CPU per server: this system cannot bind a process to a CPU")
        return
    print(f"One server bound to CPU {cpu} beside one unbound, taking turns, best of 2 (req/s)")
    print(f"{'store':<10}{'workload':<18}{'unbound':>9}{'bound':>9}{'x':>7}")
    for kind in kinds:
        with (
            store(kind) as free_url, served_with_pid(free_url) as (free, free_pid),
            store(kind) as bound_url, served_with_pid(bound_url, cpu=cpu) as (bound, bound_pid),
        ):  # fmt: skip
            sides: dict[str, Side] = {
                "unbound": (free, free_pid, ()),
                "bound": (bound, bound_pid, ()),
            }
            for name, operation in [("bare", bare), *WORKLOADS]:
                best = best_turns(sides, operation, clients, seconds)
                unbound, bound_rate = best["unbound"][0], best["bound"][0]
                print(f"{kind:<10}{name:<18}{unbound:>9.0f}{bound_rate:>9.0f}"
                      f"{bound_rate / unbound:>7.2f}")  # fmt: skip


def projector_apart(kinds: list[str], clients: int, seconds: float) -> None:
    """The projector in the server's process beside in a process of its own, taking turns
    twice; the better turn of each, with what serving and projecting cost the machine."""
    print(http_projector.__doc__)
    print(f"{'':<10}{'':<18}{'projector inside':>23}{'projector apart':>23}")
    print(f"{'store':<10}{'workload':<18}{'req/s':>9}{'server':>8}{'db':>6}"
          f"{'req/s':>9}{'server':>8}{'db':>6}{'x':>7}")  # fmt: skip
    for kind in kinds:
        with (
            store(kind) as inside_url, served_with_pid(inside_url) as (inside, inside_pid),
            store(kind) as apart_url,
            served_with_pid(apart_url, projector=False) as (apart, apart_pid),
            http_projector.projector_process(apart_url) as projector,
        ):  # fmt: skip
            sides: dict[str, Side] = {
                "in": (inside, inside_pid, ()),
                "apart": (apart, apart_pid, (projector,)),
            }
            for name, operation in WORKLOADS:
                best = best_turns(sides, operation, clients, seconds)
                (rate_in, cost_in), (rate_apart, cost_apart) = best["in"], best["apart"]
                print(f"{kind:<10}{name:<18}{rate_in:>9.0f}{cost_in['server']:>8.2f}"
                      f"{cost_in['db']:>6.2f}{rate_apart:>9.0f}{cost_apart['server']:>8.2f}"
                      f"{cost_apart['db']:>6.2f}{rate_apart / rate_in:>7.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
