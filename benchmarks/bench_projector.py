"""`make bench-projector`: what keeping the read models current costs per operation, each
projection catching up alone (a read of the log and a transaction per projection and window)
beside the three going on together (one read and one transaction per window), in one run.

    python -m benchmarks.bench_projector [--operations 300] [--stores sqlite,postgres]

A served gateway's projector catches up whatever has been committed since its last round:
a round of 1 operation is a projector keeping up with a light load, a round of 50 one far
behind under a heavy load. Each operation is a direct transfer (its two account events and
its run's three). Both ways catch up the same log into read models of their own (two table
prefixes) and take turns, round size by round size. Printed per operation: wall time, and the
CPU time of this process and of the database server (Postgres; SQLite is in this process).
"""

from __future__ import annotations

import argparse
import functools
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from application.read_models.service import ReadModels, open_read_model_store
from benchmarks import cpu_time
from gateway.bootstrap import Sluice
from gateway.demo import seed
from tests.stores import empty_store

ACCOUNTS = [f"acct{i}" for i in range(10)]
ROUNDS = (1, 2, 8, 50)  # operations per catch-up round


def measure(action: Callable[[], None], server: bool) -> tuple[float, float, float]:
    """Wall, this process's CPU and the database server's CPU, in seconds."""
    servers = cpu_time.postgres_pids() if server else set()
    before = (time.perf_counter(), time.process_time(), cpu_time.cpu_seconds(servers))
    action()
    after = (time.perf_counter(), time.process_time(), cpu_time.cpu_seconds(servers))
    return after[0] - before[0], after[1] - before[1], after[2] - before[2]


def catch_up_in_rounds(
    models: ReadModels, names: list[str] | None, start: int, end: int, step: int
) -> None:
    """From `start` to `end`, `step` positions a round: each projection alone (`names`), or
    together (None)."""
    position = start
    while position < end:
        position = min(end, position + step)
        models.catch_up(names, to=position)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--operations", type=int, default=300)
    parser.add_argument("--stores", default="sqlite,postgres")
    args = parser.parse_args()
    print(f"{args.operations} transfers per round size; per operation: wall ms, CPU ms here,")
    print("CPU ms of the database server (Postgres only)\n")
    print(f"{'store':<10}{'ops/round':>10}  {'alone: wall':>12}{'cpu':>7}{'db':>7}"
          f"  {'together: wall':>15}{'cpu':>7}{'db':>7}{'x wall':>8}")  # fmt: skip
    for kind in args.stores.split(","):
        with (
            tempfile.TemporaryDirectory() as folder,
            empty_store(kind, Path(folder)) as url,
            Sluice(url) as sluice,
        ):
            run(kind, sluice, args.operations)


def run(kind: str, sluice: Sluice, operations: int) -> None:
    gateway = sluice.gateway
    seed(gateway)
    teller = gateway.authenticate("sk-demo-teller")
    for account in ACCOUNTS:
        arguments = {"account": account, "owner": "Bench", "initial_deposit": 9000}
        gateway.call(teller, "open_account", arguments)
    ways = {
        "alone": (ReadModels(sluice.ledger, open_read_model_store(sluice.ledger, "alone_")), False),
        "together": (
            ReadModels(sluice.ledger, open_read_model_store(sluice.ledger, "both_")),
            True,
        ),
    }
    for models, _ in ways.values():
        models.catch_up(list(models.names))
    rng = random.Random(19)
    for size in ROUNDS:
        start = sluice.read_models.head()
        for _ in range(operations):
            payer, payee = rng.sample(ACCOUNTS, 2)
            gateway.call(teller, "transfer", {"payer": payer, "payee": payee, "amount": 1})
        end = sluice.read_models.head()
        step = (end - start) * size // operations  # the events of `size` operations
        shown: dict[bool, tuple[float, float, float]] = {}
        order = list(ways.values()) if size % 2 else list(ways.values())[::-1]  # turns
        for models, together in order:
            names = None if together else list(models.names)
            rounds = functools.partial(catch_up_in_rounds, models, names, start, end, step)
            shown[together] = measure(rounds, server=kind == "postgres")
        (wall_a, cpu_a, db_a), (wall_t, cpu_t, db_t) = (
            tuple(value / operations * 1e3 for value in shown[together])
            for together in (False, True)
        )
        print(f"{kind:<10}{size:>10}  {wall_a:>12.2f}{cpu_a:>7.2f}{db_a:>7.2f}"
              f"  {wall_t:>15.2f}{cpu_t:>7.2f}{db_t:>7.2f}{wall_a / wall_t:>8.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
