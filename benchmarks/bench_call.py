"""`make bench-call`: a direct transfer through `Gateway.call` in process, no HTTP.

    python -m benchmarks.bench_call [--seconds 3] [--rounds 4] [--stores sqlite,postgres]

Two gateways side by side, each on its own empty store with 10 accounts: one as served
(a write's first try on the cached accounts, taking their turns: `Gateway.writes_as_cached`)
and one with that switched off (every try loads the accounts from the store first, as
before). Each round runs, on each gateway in turn, 1 thread and then 8 threads of transfers
between random pairs of the accounts, for `--seconds` each. Printed: transfers/s and p50 ms
(medians of the rounds), the calls that ended in a conflict (409) and the ratio. Then the
CPU time one direct transfer and one propose+confirm of a one-transfer program cost, in this
process and in the database server, one at a time (what a served operation costs beyond it
is the serving: `make bench-http`).
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import cpu_time
from gateway.bootstrap import Sluice
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.demo import seed
from tests.stores import empty_store

ACCOUNTS = [f"acct{i}" for i in range(10)]
THREADS = (1, 8)


@dataclass
class Tally:
    rates: list[float] = field(default_factory=list)
    p50s: list[float] = field(default_factory=list)
    conflicts: int = 0


def transfers(gateway: Gateway, threads: int, seconds: float, tally: Tally) -> None:
    teller = gateway.authenticate("sk-demo-teller")
    latencies: list[float] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(seed_: int) -> None:
        rng = random.Random(seed_)
        mine: list[float] = []
        conflicts = 0
        while time.monotonic() < stop:
            payer, payee = rng.sample(ACCOUNTS, 2)
            began = time.perf_counter()
            try:
                gateway.call(teller, "transfer", {"payer": payer, "payee": payee, "amount": 1})
            except GatewayError as error:
                if error.kind != "conflict":
                    raise
                conflicts += 1
            mine.append(time.perf_counter() - began)
        with lock:
            latencies.extend(mine)
            tally.conflicts += conflicts

    started = time.monotonic()
    workers = [threading.Thread(target=client, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    tally.rates.append(len(latencies) / (time.monotonic() - started))
    tally.p50s.append(statistics.median(latencies) * 1e3)


def opened(stack: ExitStack, kind: str, as_cached: bool) -> Gateway:
    folder = stack.enter_context(tempfile.TemporaryDirectory())
    url = stack.enter_context(empty_store(kind, Path(folder)))
    sluice = stack.enter_context(Sluice(url))
    gateway = sluice.gateway
    gateway.writes_as_cached = as_cached
    seed(gateway)
    teller = gateway.authenticate("sk-demo-teller")
    for account in ACCOUNTS:
        arguments = {"account": account, "owner": "Bench", "initial_deposit": 9000}
        gateway.call(teller, "open_account", arguments)
    transfers(gateway, 1, 0.5, Tally())  # warm: every account cached
    return gateway


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_call")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--stores", default="sqlite,postgres")
    args = parser.parse_args()
    # The benchmark measures the gateway, not its caps: one principal, many programs.
    os.environ.setdefault("SLUICE_CAP_PROGRAMS_PER_MINUTE", "100000000")
    modes = {"from the store": False, "as cached": True}
    costs: dict[str, dict[str, tuple[float, float]]] = {}
    print("store     threads  mode              transfers/s  p50 ms  409s  x")
    for kind in args.stores.split(","):
        with ExitStack() as stack:
            gateways = {mode: opened(stack, kind, on) for mode, on in modes.items()}
            tallies = {(mode, n): Tally() for mode in modes for n in THREADS}
            for round_number in range(args.rounds):
                order = list(modes) if round_number % 2 == 0 else list(modes)[::-1]
                for threads in THREADS:
                    for mode in order:
                        transfers(gateways[mode], threads, args.seconds, tallies[mode, threads])
            for threads in THREADS:
                base = statistics.median(tallies["from the store", threads].rates)
                for mode in modes:
                    tally = tallies[mode, threads]
                    rate = statistics.median(tally.rates)
                    print(
                        f"{kind:9s} {threads:7d}  {mode:16s} {rate:12.0f} "
                        f"{statistics.median(tally.p50s):7.2f} {tally.conflicts:5d}  "
                        f"{rate / base:.2f}"
                    )
            costs[kind] = cpu_per_operation(gateways["as cached"], kind)
    print("\nCPU ms an operation in process, one thread, no projector: here (the sandbox's")
    print("workers included) and in the database server (Postgres)")
    print("store     operation          here    db")
    for kind, cost in costs.items():
        for operation, (here, db) in cost.items():
            print(f"{kind:9s} {operation:16s} {here:6.2f} {db:5.2f}")


def repeat(operation: Callable[[], None], count: int) -> None:
    for _ in range(count):
        operation()


def cpu_per_operation(
    gateway: Gateway, kind: str, count: int = 300
) -> dict[str, tuple[float, float]]:
    """What a direct transfer and a one-transfer program proposed then confirmed cost."""
    teller = gateway.authenticate("sk-demo-teller")
    rng = random.Random(7)

    def direct() -> None:
        payer, payee = rng.sample(ACCOUNTS, 2)
        gateway.call(teller, "transfer", {"payer": payer, "payee": payee, "amount": 1})

    def program() -> None:
        payer, payee = rng.sample(ACCOUNTS, 2)
        source = f'transfer(payer="{payer}", payee="{payee}", amount=1)'
        proposal = gateway.propose(teller, "python", source)
        gateway.confirm(teller, proposal.id, proposal.preview_hash)

    groups: dict[str, cpu_time.Pids] = {
        "here": lambda: cpu_time.process_tree(os.getpid()),
        "db": cpu_time.postgres_pids if kind == "postgres" else set,
    }
    costs = {}
    for name, operation in (("direct transfer", direct), ("propose+confirm", program)):
        for _ in range(30):
            operation()  # warm: the sandbox's workers, the accounts' cache
        spent = cpu_time.spent(groups, functools.partial(repeat, operation, count))
        costs[name] = (spent["here"] / count * 1e3, spent["db"] / count * 1e3)
    return costs


if __name__ == "__main__":
    main()
