"""`make bench-scale`: N gateway processes on one Postgres (N = 1, 2, 4), direct transfers and
propose+confirm, the clients spread over the processes.

    python -m benchmarks.bench_scale [--seconds 5] [--clients 16] [--processes 1,2,4] [--cpus]

With --cpus, process i is bound to CPU i mod the CPUs there are (`sluice serve --cpu`).

The first process seeds the store and runs the projector; the others are replicas
(`sluice serve --no-projector`). Every process, the clients and Postgres share this
machine's cores, so the figures say what one machine of that size does, not what N
machines would.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import httpx

from benchmarks.bench_http import Operation, direct_transfer, propose_and_confirm
from gateway.interfaces.process_cpu import allowed_cpus
from tests.served import serving
from tests.stores import empty_store

WORKLOADS: list[tuple[str, Operation]] = [
    ("direct transfer", direct_transfer),
    ("propose+confirm", propose_and_confirm),
]


def measure(
    bases: list[str], operation: Operation, clients: int, seconds: float
) -> tuple[float, float, float, int]:
    """Operations per second, p50 and p99 in ms, and the 503s (the store's lock timeout
    under contention: nothing written, retryable, not counted as done); client i talks
    to process i mod N."""
    latencies: list[float] = []
    unavailable = [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker(base: str) -> None:
        mine = []
        busy = 0
        with httpx.Client(base_url=base, timeout=30) as client:
            while time.monotonic() < stop:
                start = time.perf_counter()
                try:
                    operation(client)
                except RuntimeError as error:
                    if ": 503 " not in str(error):
                        raise
                    busy += 1
                    continue
                mine.append(time.perf_counter() - start)
        with lock:
            latencies.extend(mine)
            unavailable[0] += busy

    started = time.monotonic()
    threads = [
        threading.Thread(target=worker, args=(bases[i % len(bases)],)) for i in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    ordered = sorted(latencies)
    if not ordered:
        return 0.0, 0.0, 0.0, unavailable[0]
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return len(ordered) / elapsed, statistics.median(ordered) * 1e3, p99 * 1e3, unavailable[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--processes", default="1,2,4")
    parser.add_argument("--cpus", action="store_true", help="process i on CPU i mod the CPUs")
    args = parser.parse_args()
    cpus = sorted(allowed_cpus())
    counts = [int(n) for n in args.processes.split(",")]
    print(f"{os.cpu_count()} cores for everything: the gateways, {args.clients} clients, Postgres")
    print("each process bound to one CPU, in turn" if args.cpus else "the processes unbound")
    print(
        f"{'processes':<11}{'workload':<18}{'ops/s':>9}{'p50 ms':>9}{'p99 ms':>9}"
        f"{'x N=1':>8}{'503s':>6}"
    )
    first: dict[str, float] = {}
    for count in counts:
        with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
            url = stack.enter_context(empty_store("postgres", Path(folder)))
            argv = [sys.executable, "-m", "benchmarks.http_server", "--database-url", url]
            bases = []
            for index in range(count):
                bound = ["--cpu", str(cpus[index % len(cpus)])] if args.cpus else []
                replica = ["--replica"] if index else []
                served = serving([*argv, *bound, *replica], dict(os.environ))
                bases.append(stack.enter_context(served))
            for name, operation in WORKLOADS:
                measure(bases, operation, args.clients, 1.0)  # warm every process alike
                rate, p50, p99, busy = measure(bases, operation, args.clients, args.seconds)
                first.setdefault(name, rate)
                print(
                    f"{count:<11}{name:<18}{rate:>9.0f}{p50:>9.1f}{p99:>9.1f}"
                    f"{rate / first[name]:>8.2f}{busy:>6}"
                )


if __name__ == "__main__":
    main()
