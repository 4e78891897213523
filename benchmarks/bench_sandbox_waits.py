"""One-transfer programs queued behind busy sandbox workers, under CPU load: how each is answered.

A few runaway programs (`while True: pass`) take the workers for the whole time cap, CPU
burners load the machine, and a burst of one-transfer programs is proposed at once. Each
answer is counted: a preview (pending), refused "time limit", "unavailable" (the worker wait
ran out; retryable), or anything else; with the latency of the previews.

    python -m benchmarks.bench_sandbox_waits [--programs 24] [--runaways 2] [--burners 2]

Runs on the gateway in process, on an in-memory store, with the default caps and pool, but
for the caps on a principal's programs per minute and at once: the burst is one principal's,
queued behind the workers, which is what is measured (`programs_at_once` would refuse it).
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from application import principals
from application.bank import BANK_USE_CASES, DIRECTORY_HEADER
from application.ledger import Ledger
from gateway.core.catalog import Catalog
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.policy.caps import Caps
from gateway.core.program.runner import ProgramRunner
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed

PAY_BOB = 'transfer(payer="alice", payee="bob", amount=0.01)'
RUNAWAY = "while True:\n    pass"


def burn(stop: Any) -> None:
    while not stop.is_set():
        sum(range(10_000))


def answer_kind(error: GatewayError) -> str:
    if error.kind == "unavailable":
        return "unavailable (503)"
    if error.message.startswith("time limit"):
        return "time limit (422)"
    return f"{error.kind}: {error}"


@dataclass
class Tally:
    answers: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, seconds: float) -> None:
        with self.lock:
            self.answers[kind] += 1
            if kind.startswith("preview"):
                self.latencies.append(seconds)


def build(caps: Caps) -> tuple[Gateway, Sandbox]:
    limits = caps.program_limits()
    sandbox = Sandbox(limits)
    catalog = Catalog(DIRECTORY_HEADER, BANK_USE_CASES)
    ledger = Ledger(env={"PERSISTENCE_MODULE": "infrastructure.popo"})
    gateway = Gateway(ledger, catalog, ProgramRunner(ledger, catalog, sandbox, limits), caps)
    seed(gateway)
    return gateway, sandbox


def burst(gateway: Gateway, programs: int, runaways: int) -> Tally:
    alice = principals.find(gateway.ledger, "alice")
    admin = principals.find(gateway.ledger, "admin")
    assert alice is not None and admin is not None
    gateway.propose(alice, "python", PAY_BOB)  # the workers are up before the clock starts
    tally = Tally()

    def runaway() -> None:
        with contextlib.suppress(GatewayError):
            gateway.propose(admin, "python", RUNAWAY)

    def one_transfer() -> None:
        started = time.monotonic()
        try:
            gateway.propose(alice, "python", PAY_BOB)
            kind = "preview (201)"
        except GatewayError as error:
            kind = answer_kind(error)
        tally.add(kind, time.monotonic() - started)

    first = [threading.Thread(target=runaway) for _ in range(runaways)]
    for thread in first:
        thread.start()
    time.sleep(0.3)  # the runaways hold the workers
    then = [threading.Thread(target=one_transfer) for _ in range(programs)]
    for thread in then:
        thread.start()
    for thread in [*first, *then]:
        thread.join()
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=24)
    parser.add_argument("--runaways", type=int, default=2)
    parser.add_argument("--burners", type=int, default=2)
    args = parser.parse_args()

    caps = replace(Caps(), programs_per_minute=10_000, programs_at_once=10_000)
    gateway, sandbox = build(caps)
    stop = multiprocessing.Event()
    burners = [multiprocessing.Process(target=burn, args=(stop,)) for _ in range(args.burners)]
    for burner in burners:
        burner.start()
    try:
        tally = burst(gateway, args.programs, args.runaways)
    finally:
        stop.set()
        for burner in burners:
            burner.join()
        sandbox.close()

    print(
        f"{args.programs} one-transfer programs behind {args.runaways} runaways, "
        f"{args.burners} CPU burners, time cap {caps.max_run_seconds:g} s:"
    )
    for kind, count in sorted(tally.answers.items()):
        print(f"  {kind:<20} {count}")
    if tally.latencies:
        print(
            f"  preview latency: p50 {statistics.median(tally.latencies):.2f} s, "
            f"max {max(tally.latencies):.2f} s"
        )


if __name__ == "__main__":
    main()
