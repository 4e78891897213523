"""`make bench-call`: a direct transfer through `Gateway.call` in process, no HTTP.

    python -m benchmarks.bench_call [--seconds 3] [--rounds 4] [--stores sqlite,postgres]

Two gateways side by side, each on its own empty store with 10 accounts: one as served
(a write's first try on the cached accounts, taking their turns: `Gateway.writes_as_cached`)
and one with that switched off (every try loads the accounts from the store first, as
before). Each round runs, on each gateway in turn, 1 thread and then 8 threads of transfers
between random pairs of the accounts, for `--seconds` each. Printed: transfers/s and p50 ms
(medians of the rounds), the calls that ended in a conflict (409) and the ratio.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

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
    modes = {"from the store": False, "as cached": True}
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


if __name__ == "__main__":
    main()
