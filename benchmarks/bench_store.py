"""Event store benchmark: eventsourcing.postgres against infrastructure.postgres.

Run as `python -m benchmarks.bench_store` (`--help` lists the knobs; each has an
environment variable too). In one process, against one server, each module gets
a fresh schema, the same pool size, the server's own durability settings
(synchronous_commit untouched) and the same workload through an eventsourcing
Application:

- transfer: load two accounts from the repository, `debit_transfer` one,
  `credit_transfer` the other, `app.save(a, b)`; an IntegrityError (another
  client saved one of them first) reloads both and tries again. From 1 client
  thread, then from 8, over 10,000 accounts.
- bulk read: 100,000 notifications read in pages with `select_notifications`.

With `--history N` each account starts with N more deposits: the Application caches no
aggregate, so each load replays the whole history and loads dominate (e.g. `--accounts
2000 --history 200`).

The modules take turns: each workload runs in slices that alternate between
them, so that a checkpoint or an autovacuum cannot favour one. The table gives
throughput, p50 and p99 latency (of a transfer, or of a page) for each module,
and the ratio ours/theirs.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from urllib.parse import unquote, urlsplit
from uuid import UUID

import psycopg
from eventsourcing.application import Application
from eventsourcing.persistence import IntegrityError

from domain.account import Account, account_id

BASELINE = "eventsourcing.postgres"
OURS = "infrastructure.postgres"
MODULES = (BASELINE, OURS)
AMOUNT = Decimal("1.00")
OPENING_BALANCE = Decimal("1000000.00")
SEED_BATCH = 250


class Bank(Application[UUID]):
    """Just the repository and save(): the benchmark drives the accounts itself."""


@dataclass
class Options:
    url: str
    accounts: int
    transfers: int
    warmup: int
    rounds: int
    clients: list[int]
    notifications: int
    page_size: int
    read_rounds: int
    profile: str | None
    history: int = 0


@dataclass
class Result:
    workload: str
    module: str
    unit: str
    count: int = 0
    elapsed: float = 0.0
    latencies: list[float] = field(default_factory=list)
    retries: int = 0

    @property
    def throughput(self) -> float:
        return self.count / self.elapsed if self.elapsed else 0.0

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return 0.0
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Subject:
    """One module under test: its application and its accounts."""

    module: str
    bank: Bank
    ids: list[UUID] = field(default_factory=list)


def parse_options(argv: Sequence[str] | None) -> Options:
    env = os.environ.get
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_store",
        description="eventsourcing.postgres against infrastructure.postgres",
    )
    parser.add_argument(
        "--url",
        default=env("SLUICE_BENCH_DATABASE_URL")
        or env("SLUICE_TEST_DATABASE_URL")
        or "postgresql://postgres@127.0.0.1:5432/postgres",
        help="the server (env SLUICE_BENCH_DATABASE_URL, else SLUICE_TEST_DATABASE_URL)",
    )
    parser.add_argument(
        "--accounts",
        type=int,
        default=int(env("SLUICE_BENCH_ACCOUNTS", "10000")),
        help="accounts to transfer between (env SLUICE_BENCH_ACCOUNTS; default 10000)",
    )
    parser.add_argument(
        "--transfers",
        type=int,
        default=int(env("SLUICE_BENCH_TRANSFERS", "3000")),
        help="measured transfers per module per client count (env SLUICE_BENCH_TRANSFERS)",
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=int(env("SLUICE_BENCH_WARMUP", "100")),
        help="unmeasured transfers before each slice (env SLUICE_BENCH_WARMUP)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=int(env("SLUICE_BENCH_ROUNDS", "2")),
        help="slices per module per client count, in alternation (env SLUICE_BENCH_ROUNDS)",
    )
    parser.add_argument(
        "--clients",
        default=env("SLUICE_BENCH_CLIENTS", "1,8"),
        help="client thread counts, comma separated (env SLUICE_BENCH_CLIENTS)",
    )
    parser.add_argument(
        "--notifications",
        type=int,
        default=int(env("SLUICE_BENCH_NOTIFICATIONS", "100000")),
        help="notifications in the bulk read (env SLUICE_BENCH_NOTIFICATIONS)",
    )
    parser.add_argument(
        "--page-size",
        type=int,
        default=int(env("SLUICE_BENCH_PAGE", "1000")),
        help="notifications per select_notifications call (env SLUICE_BENCH_PAGE)",
    )
    parser.add_argument(
        "--read-rounds",
        type=int,
        default=int(env("SLUICE_BENCH_READ_ROUNDS", "3")),
        help="bulk reads per module (env SLUICE_BENCH_READ_ROUNDS)",
    )
    parser.add_argument(
        "--history",
        type=int,
        default=int(env("SLUICE_BENCH_HISTORY", "0")),
        help="deposits seeded on each account before the transfers, so that loads (no "
        "aggregate cache: every load replays the history) dominate (env SLUICE_BENCH_HISTORY)",
    )
    parser.add_argument(
        "--profile",
        choices=MODULES,
        help="profile this module's 1-client transfers and print the top entries",
    )
    args = parser.parse_args(argv)
    return Options(
        url=args.url,
        accounts=args.accounts,
        transfers=args.transfers,
        warmup=args.warmup,
        rounds=max(1, args.rounds),
        clients=[int(c) for c in args.clients.split(",") if c.strip()],
        notifications=args.notifications,
        page_size=args.page_size,
        read_rounds=max(1, args.read_rounds),
        profile=args.profile,
        history=max(0, args.history),
    )


def server_env(url: str) -> dict[str, str]:
    parts = urlsplit(url)
    return {
        "POSTGRES_DBNAME": unquote(parts.path.lstrip("/")) or "postgres",
        "POSTGRES_HOST": parts.hostname or "127.0.0.1",
        "POSTGRES_PORT": str(parts.port or 5432),
        "POSTGRES_USER": unquote(parts.username or "postgres"),
        "POSTGRES_PASSWORD": unquote(parts.password or ""),
    }


@contextmanager
def fresh_schema(url: str, module: str) -> Iterator[str]:
    name = f"bench_{module.split('.', maxsplit=1)[0][:5]}_{os.getpid()}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
        conn.execute(f'CREATE SCHEMA "{name}"')
    try:
        yield name
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


def checkpoint(url: str) -> None:
    """Start each slice from a clean checkpoint when the role may ask for one."""
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CHECKPOINT")
    except psycopg.Error:
        pass


def open_bank(options: Options, module: str, schema: str) -> Bank:
    env = {
        **server_env(options.url),
        "PERSISTENCE_MODULE": module,
        "POSTGRES_SCHEMA": schema,
        "POSTGRES_POOL_SIZE": str(max(options.clients)),
        "POSTGRES_MAX_OVERFLOW": "2",
    }
    return Bank(env=env)


def seed_accounts(bank: Bank, count: int, prefix: str, history: int = 0) -> list[UUID]:
    ids: list[UUID] = []
    per_batch = max(1, SEED_BATCH * 2 // (history + 2))
    for start in range(0, count, per_batch):
        batch = []
        for n in range(start, min(count, start + per_batch)):
            account = Account(account=f"{prefix}{n:06d}", owner=f"Owner {n}")
            account.deposit(OPENING_BALANCE, "opening")
            for _ in range(history):
                account.deposit(AMOUNT, "history")
            batch.append(account)
            ids.append(account_id(account.account))
        bank.save(*batch)
    return ids


def transfer(bank: Bank, rng: random.Random, ids: list[UUID]) -> int:
    payer_id, payee_id = rng.sample(ids, 2)
    retries = 0
    while True:
        payer: Account = bank.repository.get(payer_id)
        payee: Account = bank.repository.get(payee_id)
        payer.debit_transfer(AMOUNT, payee.account, "bench")
        payee.credit_transfer(AMOUNT, payer.account, "bench")
        try:
            bank.save(payer, payee)
        except IntegrityError:
            retries += 1
            continue
        return retries


def run_transfers(
    subject: Subject,
    clients: int,
    transfers: int,
    warmup: int,
    result: Result,
    *,
    profiler: cProfile.Profile | None = None,
) -> None:
    """`transfers` transfers shared among `clients` threads, after `warmup` unmeasured ones.

    A fixed amount of work rather than a fixed time: both modules then leave
    the same number of events behind, and later slices replay equally long
    account histories.
    """
    lock = threading.Lock()
    barrier = threading.Barrier(clients + 1)
    shares = [transfers // clients + (1 if n < transfers % clients else 0) for n in range(clients)]

    def client(seed: int) -> None:
        rng = random.Random(seed * 7919 + len(result.latencies))
        for _ in range(warmup // clients):
            transfer(subject.bank, rng, subject.ids)
        barrier.wait()
        if profiler is not None and seed == 0:
            profiler.enable()
        latencies: list[float] = []
        retries = 0
        for _ in range(shares[seed]):
            began = time.perf_counter()
            retries += transfer(subject.bank, rng, subject.ids)
            latencies.append(time.perf_counter() - began)
        if profiler is not None and seed == 0:
            profiler.disable()
        with lock:
            result.latencies.extend(latencies)
            result.retries += retries

    threads = [threading.Thread(target=client, args=(seed,)) for seed in range(clients)]
    for thread in threads:
        thread.start()
    barrier.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    result.elapsed += time.perf_counter() - began
    result.count = len(result.latencies)


def top_up_log(bank: Bank, wanted: int) -> None:
    # Failed inserts (the retried transfers) leave gaps in the ids: aim above.
    wanted += 5_000
    current = bank.recorder.max_notification_id() or 0
    if current < wanted:
        # Two events per account (opened, deposited).
        seed_accounts(bank, (wanted - current + 1) // 2, prefix="fill")


def run_bulk_read(subject: Subject, options: Options, result: Result) -> None:
    recorder = subject.bank.recorder
    last = 0
    read = 0
    began = time.perf_counter()
    while read < options.notifications:
        page_began = time.perf_counter()
        page = recorder.select_notifications(
            start=last,
            limit=min(options.page_size, options.notifications - read),
            inclusive_of_start=False,
        )
        result.latencies.append(time.perf_counter() - page_began)
        if not page:
            msg = f"the log ended after {read} notifications"
            raise RuntimeError(msg)
        read += len(page)
        last = page[-1].id
    result.elapsed += time.perf_counter() - began
    result.count += read


def print_profile(profiler: cProfile.Profile) -> None:
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(40)
    stats.sort_stats("tottime").print_stats(25)
    print(out.getvalue(), file=sys.stderr)


def in_turns(round_number: int) -> Sequence[str]:
    return MODULES if round_number % 2 == 0 else tuple(reversed(MODULES))


def run(subjects: dict[str, Subject], options: Options) -> list[Result]:
    results: list[Result] = []
    for clients in options.clients:
        per_module = {m: Result(f"transfer x{clients}", m, "transfers/s") for m in MODULES}
        profiler = cProfile.Profile() if options.profile and clients == 1 else None
        for round_number in range(options.rounds):
            for module in in_turns(round_number):
                log(f"[{module}] transfers from {clients} client(s), slice {round_number + 1}")
                checkpoint(options.url)
                run_transfers(
                    subjects[module],
                    clients,
                    options.transfers // options.rounds,
                    options.warmup,
                    per_module[module],
                    profiler=profiler if module == options.profile else None,
                )
        if profiler is not None:
            print_profile(profiler)
        results.extend(per_module.values())

    for subject in subjects.values():
        log(f"[{subject.module}] filling the log to {options.notifications:,}")
        top_up_log(subject.bank, options.notifications)
    per_module = {
        m: Result(f"bulk read {options.notifications:,}", m, "notifications/s") for m in MODULES
    }
    for round_number in range(options.read_rounds):
        for module in in_turns(round_number):
            log(f"[{module}] bulk read {round_number + 1}")
            run_bulk_read(subjects[module], options, per_module[module])
    results.extend(per_module.values())
    return results


def print_table(results: list[Result]) -> None:
    rows = [("workload", "module", "throughput", "p50 ms", "p99 ms", "retries")]
    by_workload: dict[str, dict[str, Result]] = {}
    for result in results:
        by_workload.setdefault(result.workload, {})[result.module] = result
    for workload, per_module in by_workload.items():
        for module in MODULES:
            measured = per_module[module]
            rows.append(
                (
                    workload,
                    module,
                    f"{measured.throughput:,.0f} {measured.unit}",
                    f"{measured.percentile(0.50) * 1000:.2f}",
                    f"{measured.percentile(0.99) * 1000:.2f}",
                    str(measured.retries),
                )
            )
        ours, theirs = per_module[OURS], per_module[BASELINE]
        ratio = ours.throughput / theirs.throughput if theirs.throughput else float("inf")
        p50 = theirs.percentile(0.5) / ours.percentile(0.5) if ours.latencies else 0.0
        p99 = theirs.percentile(0.99) / ours.percentile(0.99) if ours.latencies else 0.0
        rows.append(
            (workload, "ratio ours/theirs", f"{ratio:.2f}x", f"/{p50:.2f}", f"/{p99:.2f}", "")
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
        if n == 0:
            print("  ".join("-" * width for width in widths))


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_options(argv)
    log(
        f"accounts={options.accounts:,} transfers={options.transfers:,} warmup={options.warmup} "
        f"rounds={options.rounds} clients={options.clients} "
        f"notifications={options.notifications:,} page={options.page_size} "
        f"read_rounds={options.read_rounds}"
    )
    with ExitStack() as stack:
        subjects: dict[str, Subject] = {}
        for module in MODULES:
            schema = stack.enter_context(fresh_schema(options.url, module))
            bank = open_bank(options, module, schema)
            stack.callback(bank.close)
            log(f"[{module}] seeding {options.accounts:,} accounts of {options.history + 2} events")
            ids = seed_accounts(bank, options.accounts, "a", options.history)
            subjects[module] = Subject(module, bank, ids)
        results = run(subjects, options)
    print_table(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
