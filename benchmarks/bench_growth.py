"""`make bench-growth`: what a transfer and a listing program cost as the log grows (Postgres).

    python -m benchmarks.bench_growth [--events 1000000] [--cold 5] [--warm 100]

1. A transfer from an account with 1, 1,000 and 100,000 past events: cold (a fresh process,
   which has cached nothing: it loads the account from its latest snapshot and the events
   after it) and warm (the same process again, the account cached and fast-forwarded).
2. A program calling `list_accounts` and `statement` on a log of 1,000 events and on one of
   `--events` events, the same 100 accounts in both (the big log's extra events are
   deposits spread over them): cold and warm as above.

Target: each curve within 1.5x of its smallest point.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from decimal import Decimal
from functools import partial
from pathlib import Path

from application.bank import BANK_USE_CASES, DIRECTORY_HEADER
from application.bank.accounts import OpenAccount
from application.bank.movements import Transfer
from application.ledger import Ledger
from application.store_config import eventsourcing_env
from domain.account import Account
from gateway.core.catalog import Catalog
from gateway.core.program.limits import ProgramLimits
from gateway.core.program.runner import ProgramRunner
from gateway.core.program.sandbox import Sandbox
from tests.direct import call_now
from tests.stores import empty_store

HISTORIES = (1, 1_000, 100_000)
ACCOUNTS = 100
PROGRAM = 'listed = list_accounts()\nlatest = statement(account="a000", limit=20)\nlen(listed)\n'
ONE = Decimal("1.00")


def deposits(ledger: Ledger, accounts: list[Account], events: int) -> None:
    """`events` deposits spread over the accounts, saved 2,000 at a time."""
    left = events
    while left > 0:
        batch = min(left, 2000)
        for i in range(batch):
            accounts[(left - i) % len(accounts)].deposit(ONE, "")
        ledger.save(*accounts)
        left -= batch


def fill_histories(ledger: Ledger) -> None:
    call_now(ledger, OpenAccount(account="sink", owner="Sink"))
    # Loaded first by a cold process: its connection prepares the statements of a load
    # from a snapshot once, as any process serving for a while has.
    call_now(ledger, OpenAccount(account="warm", owner="Bench"))
    deposits(ledger, [ledger.load_keyed(Account, "warm")], 150)
    for size in HISTORIES:
        name = f"h{size}"
        call_now(ledger, OpenAccount(account=name, owner="Bench", initial_deposit=Decimal(10**6)))
        account = ledger.load_keyed(Account, name)
        deposits(ledger, [account], size - 2)  # opened and first deposit: 2 events


def fill_log(ledger: Ledger, events: int) -> None:
    for n in range(ACCOUNTS):
        call_now(ledger, OpenAccount(account=f"a{n:03d}", owner="Bench"))
    head = ledger.recorder.max_notification_id() or 0
    accounts = [ledger.load_keyed(Account, f"a{n:03d}") for n in range(ACCOUNTS)]
    deposits(ledger, accounts, events - head)


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1e3


def transfer(ledger: Ledger, payer: str) -> None:
    outcome = call_now(ledger, Transfer(payer=payer, payee="sink", amount=Decimal("0.01")))
    if not outcome.ok:
        raise RuntimeError(outcome.error)


def program_runner(ledger: Ledger) -> tuple[ProgramRunner, Sandbox]:
    limits = ProgramLimits(max_calls=200, wall_seconds=10)
    sandbox = Sandbox(limits, workers=1)
    return ProgramRunner(
        ledger, Catalog(DIRECTORY_HEADER, BANK_USE_CASES), sandbox, limits
    ), sandbox


def run_program(runner: ProgramRunner) -> None:
    preview = runner.preview(PROGRAM)
    if not preview.ok:
        raise RuntimeError(str(preview.error))


def child(kind: str, url: str, target: str) -> None:
    """One cold measure, printed: this process has cached nothing of the store."""
    with Ledger(env=eventsourcing_env(url)) as ledger:
        ledger.recorder.max_notification_id()  # the connection, not the measure
        if kind == "transfer":
            ledger.load_keyed(Account, "warm")
            print(json.dumps(timed(lambda: transfer(ledger, target))))
            return
        runner, sandbox = program_runner(ledger)
        try:
            runner.preview("1")  # the workers and the checker, not the measure
            print(json.dumps(timed(lambda: run_program(runner))))
        finally:
            sandbox.close()


def cold_once(kind: str, url: str, target: str) -> float:
    command = [sys.executable, "-m", "benchmarks.bench_growth", "--child", kind, url, target]
    return float(subprocess.run(command, check=True, capture_output=True).stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--cold", type=int, default=5)
    parser.add_argument("--warm", type=int, default=100)
    parser.add_argument("--child", nargs=3, metavar=("KIND", "URL", "TARGET"))
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return

    print(f"{'':<36}{'cold ms':>10}{'x':>9}{'warm ms':>10}{'x':>9}")
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        url = stack.enter_context(empty_store("postgres", Path(folder)))
        ledger = stack.enter_context(Ledger(env=eventsourcing_env(url)))
        started = time.perf_counter()
        fill_histories(ledger)
        print(f"(histories written in {time.perf_counter() - started:.0f} s)")
        names = [f"h{size}" for size in HISTORIES]
        for name in names:
            transfer(ledger, name)
        # Taking turns, so the machine's load falls on every point alike.
        colds = alternate([partial(cold_once, "transfer", url, n) for n in names], args.cold)
        warms = alternate([partial(timed, partial(transfer, ledger, n)) for n in names], args.warm)
        labels = [f"transfer, {size:,} past events" for size in HISTORIES]
        table(labels, colds, warms)

        urls, runners, heads = [], [], []
        for events in (1_000, args.events):
            url = stack.enter_context(empty_store("postgres", Path(folder)))
            log = stack.enter_context(Ledger(env=eventsourcing_env(url)))
            started = time.perf_counter()
            fill_log(log, events)
            heads.append(log.recorder.max_notification_id() or 0)
            print(f"(log of {heads[-1]:,} events written in {time.perf_counter() - started:.0f} s)")
            runner, sandbox = program_runner(log)
            stack.callback(sandbox.close)
            run_program(runner)
            urls.append(url)
            runners.append(runner)
        colds = alternate([partial(cold_once, "program", u, "-") for u in urls], args.cold)
        warms = alternate([partial(timed, partial(run_program, r)) for r in runners], args.warm)
        table([f"list_accounts+statement, {h:,} ev" for h in heads], colds, warms)


def alternate(measures: list[Callable[[], float]], rounds: int) -> list[float]:
    found: list[list[float]] = [[] for _ in measures]
    for _ in range(rounds):
        for i, measure in enumerate(measures):
            found[i].append(measure())
    return [statistics.median(values) for values in found]


def table(labels: list[str], colds: list[float], warms: list[float]) -> None:
    for label, cold_ms, warm_ms in zip(labels, colds, warms, strict=True):
        print(
            f"{label:<36}{cold_ms:>10.2f}{cold_ms / colds[0]:>8.2f}x"
            f"{warm_ms:>10.2f}{warm_ms / warms[0]:>8.2f}x"
        )


if __name__ == "__main__":
    main()
