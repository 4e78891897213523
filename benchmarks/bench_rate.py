"""The cost of one admission to a per-minute cap, on each store, without HTTP around it.

    python -m benchmarks.bench_rate [--seconds 2] [--store memory|sqlite|postgres|all]

Admitted: one thread, a cap never reached (the window is read, slid and written back).
Refused: one thread past its cap (read and slid, nothing written). Contended: 8 threads
admitting the same principal, as 8 requests of one client at once (they queue on its row).
Postgres comes from SLUICE_TEST_DATABASE_URL, in a schema of its own, dropped afterwards.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from application.ledger import Ledger
from application.rate_counter import RateCounter, open_rate_counter
from application.store_config import eventsourcing_env
from tests.stores import empty_store

NEVER = 2_000_000_000
THREADS = 8


@contextmanager
def counter_on(kind: str) -> Iterator[RateCounter]:
    with (
        tempfile.TemporaryDirectory() as folder,
        empty_store(kind, Path(folder)) as url,
        Ledger(env=eventsourcing_env(url)) as ledger,
    ):
        counter = open_rate_counter(ledger, "bench")
        try:
            yield counter
        finally:
            counter.close()


def timed(counter: RateCounter, key: str, cap: int, seconds: float) -> list[float]:
    """Microseconds per admission, for as many as fit in `seconds`."""
    spent: list[float] = []
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        start = time.perf_counter()
        counter.admit(key, cap)
        spent.append((time.perf_counter() - start) * 1e6)
    return spent


def contended(counter: RateCounter, seconds: float) -> tuple[float, list[float]]:
    """(admissions per second, microseconds each) from THREADS threads on one key."""
    spent: list[float] = []
    lock = threading.Lock()

    def run() -> None:
        mine = timed(counter, "shared", NEVER, seconds)
        with lock:
            spent.extend(mine)

    threads = [threading.Thread(target=run) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return len(spent) / seconds, spent


def line(kind: str, case: str, spent: list[float], rate: float | None = None) -> str:
    ordered = sorted(spent)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    per_second = rate if rate is not None else len(spent) / (sum(spent) / 1e6)
    return (f"{kind:<10}{case:<14}{per_second:>12,.0f}{statistics.median(ordered):>10.1f}"
            f"{p99:>10.1f}")  # fmt: skip


def report(kinds: list[str], seconds: float = 2.0) -> None:
    print(f"Admission to a per-minute cap, alone ({seconds:g} s per case)")
    print(f"{'store':<10}{'case':<14}{'per second':>12}{'p50 us':>10}{'p99 us':>10}")
    for kind in kinds:
        with counter_on(kind) as counter:
            print(line(kind, "admitted", timed(counter, "alice", NEVER, seconds)))
            counter.admit("bob", 1)
            print(line(kind, "refused", timed(counter, "bob", 1, seconds)))
            rate, spent = contended(counter, seconds)
            print(line(kind, f"{THREADS} threads", spent, rate))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--store", choices=["memory", "sqlite", "postgres", "all"], default="all")
    args = parser.parse_args()
    kinds = ["memory", "sqlite", "postgres"] if args.store == "all" else [args.store]
    report(kinds, args.seconds)


if __name__ == "__main__":
    main()
