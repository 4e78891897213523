"""A bank test in the Jepsen style: several gateway processes on one Postgres database,
concurrent clients making transfers (direct, and programs proposed then confirmed), while
a nemesis kills gateways with SIGKILL, terminates their database sessions and cuts their
links; then the books are checked from the log.

Run briefly by `tests/bank/test_bank.py`, at length by `make bench-bank`."""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import httpx

from gateway.bootstrap import Sluice
from gateway.demo import seed
from tests.bank.checks import Books, check_books
from tests.bank.nodes import UNCAPPED, Node
from tests.bank.workload import TELLER, Op, Workload
from tests.postgres import support
from tests.stores import postgres_url

# Answers a client may get: never a 5xx other than 503 (which says when to retry).
EXPECTED = frozenset({200, 409, 410, 422, 503, None})


@dataclass(frozen=True)
class Settings:
    processes: int = 3
    clients: int = 6
    seconds: float = 20.0
    accounts: int = 8
    opening: Decimal = Decimal(1000)
    program_share: float = 0.3
    faults: bool = True
    cut_seconds: float = 2.0


@dataclass
class Fault:
    kind: str
    node: int | None  # None: every node
    at: float
    healed: float
    detail: str = ""
    recovery: float | None = None  # seconds from healed to the next write the node(s) served


@dataclass
class Report:
    settings: Settings
    ops: list[Op]
    faults: list[Fault]
    books: Books
    elapsed: float
    unexpected: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.books.problems and not self.unexpected

    def lines(self) -> list[str]:
        ops, s = self.ops, self.settings
        first = {
            kind: dict(
                sorted(Counter(str(op.first_status) for op in ops if op.kind == kind).items())
            )
            for kind in ("direct", "program")
        }
        final = Counter(str(op.status) for op in ops)
        latencies = sorted(op.ended - op.started for op in ops if op.first_status == op.status)
        acknowledged = [op for op in ops if op.acknowledged]
        lines = [
            f"{s.processes} gateways, {s.clients} clients, {s.seconds:g} s, {s.accounts} accounts, "
            f"faults {'on' if s.faults else 'off'}",
            f"operations {len(ops)} ({len(ops) / self.elapsed:.0f}/s): "
            f"{sum(op.kind == 'direct' for op in ops)} direct, "
            f"{sum(op.kind == 'program' for op in ops)} programs",
            f"acknowledged {len(acknowledged)}; "
            f"retried with their key {sum(op.retried for op in ops)}",
            f"first answers by status: direct {first['direct']}, programs {first['program']}",
            f"final answers by status: {dict(sorted(final.items()))}",
        ]
        if latencies:
            p50 = statistics.median(latencies) * 1000
            p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
            lines.append(
                f"latency p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {latencies[-1] * 1000:.0f} ms"
            )
        for fault in self.faults:
            where = "all gateways" if fault.node is None else f"gateway {fault.node}"
            recovery = "never" if fault.recovery is None else f"{fault.recovery:.2f} s"
            lines.append(
                f"fault at {fault.at:.1f} s: {fault.kind} on {where}{fault.detail}; "
                f"next write served {recovery} after it ended"
            )
        lines += [f"PROBLEM: {p}" for p in self.unexpected + self.books.problems]
        lines.append("the books are straight" if self.ok else "the books are NOT straight")
        return lines


def run_bank(settings: Settings, workdir: Path, say: Callable[[str], None] = print) -> Report:
    schema = support.create_schema()
    try:
        url = postgres_url(schema)
        env = {**os.environ, **UNCAPPED, "SLUICE_DATABASE_URL": url}
        accounts = [f"bank{i}" for i in range(settings.accounts)]
        _seed(url, accounts, settings.opening)
        nodes = [Node(i, schema, workdir / f"gateway{i}.log") for i in range(settings.processes)]
        try:
            # Started side by side: each start is mostly a wait for its imports.
            with ThreadPoolExecutor(len(nodes)) as starting:
                list(starting.map(lambda node: node.start(), nodes))
            return _load_and_check(settings, nodes, url, env, accounts, say)
        finally:
            for node in nodes:
                node.stop()
    finally:
        support.drop_schema(schema)


def _load_and_check(
    settings: Settings,
    nodes: list[Node],
    url: str,
    env: dict[str, str],
    accounts: list[str],
    say: Callable[[str], None],
) -> Report:
    workload = Workload([node.base for node in nodes], accounts, settings.program_share)
    stop = threading.Event()
    clients = [
        threading.Thread(target=workload.client, args=(i, stop), daemon=True)
        for i in range(settings.clients)
    ]
    started = time.monotonic()
    for client in clients:
        client.start()
    faults = _nemesis(nodes, settings, started, say) if settings.faults else []
    # The load goes on a while after the last fault ends, so that recovery shows.
    end = max(started + settings.seconds, max((f.healed for f in faults), default=0) + 5)
    time.sleep(max(0.0, end - time.monotonic()))
    stop.set()
    for client in clients:
        client.join(timeout=60)
    elapsed = time.monotonic() - started
    say(f"load done: {len(workload.ops)} operations; retrying those without an answer")
    for op in workload.ops:
        if op.kind == "direct" and op.status in {None, 503}:
            workload.retry(op)
    _settle(nodes)
    books = check_books(url, env, workload.ops, accounts, settings.opening)
    for fault in faults:
        fault.at -= started
        fault.recovery = _recovery(fault, workload.ops, started)
    unexpected = [
        f"{op.memo} on gateway {op.node} answered {op.first_status}: {op.detail[:200]}"
        for op in workload.ops
        if op.first_status not in EXPECTED
    ] + [f"{op.memo}: a 503 without Retry-After" for op in workload.ops
         if op.status == 503 and not op.retry_after]  # fmt: skip
    return Report(settings, workload.ops, faults, books, elapsed, unexpected[:20])


def _nemesis(
    nodes: list[Node], settings: Settings, started: float, say: Callable[[str], None]
) -> list[Fault]:
    """Spread rounds of three faults over the run: every gateway's sessions terminated, one
    gateway's link cut for a while, one gateway killed with SIGKILL and started again."""
    rounds = max(1, int(settings.seconds // 30))
    slots = rounds * 3
    gap = settings.seconds / (slots + 1)
    faults: list[Fault] = []
    for slot in range(slots):
        time.sleep(max(0.0, started + gap * (slot + 1) - time.monotonic()))
        victim = nodes[(slot // 3 + 1) % len(nodes)]
        kind = slot % 3
        at = time.monotonic()
        if kind == 0:
            killed = sum(node.terminate_backends() for node in nodes)
            faults.append(Fault("pg_terminate_backend", None, at, at, f" ({killed} sessions)"))
        elif kind == 1:
            victim.proxy.cut()
            time.sleep(settings.cut_seconds)
            victim.proxy.heal()
            detail = f" for {settings.cut_seconds:g} s"
            faults.append(Fault("cut link", victim.index, at, time.monotonic(), detail))
        else:
            victim.kill()
            restart = victim.start()
            detail = f" (restarted in {restart:.1f} s)"
            faults.append(Fault("kill -9", victim.index, at, time.monotonic(), detail))
        say(f"{faults[-1].kind} at {at - started:.1f} s")
    return faults


def _recovery(fault: Fault, ops: list[Op], started: float) -> float | None:
    served = [
        op.ended
        for op in ops
        if op.first_status == 200
        and op.started >= fault.healed
        and (fault.node is None or op.node == fault.node)
    ]
    return min(served) - fault.healed if served else None


def _settle(nodes: list[Node]) -> None:
    """Every gateway up and answering a consistent read."""
    for node in nodes:
        answer = httpx.get(
            f"{node.base}/v1/accounts", params={"consistent": "true"}, headers=TELLER, timeout=60
        )
        answer.raise_for_status()


def _seed(url: str, accounts: list[str], opening: Decimal) -> None:
    with Sluice(url) as sluice:
        seed(sluice.gateway)
        teller = sluice.gateway.authenticate(TELLER["Authorization"].split()[1])
        for account in accounts:
            sluice.gateway.call(
                teller,
                "open_account",
                {"account": account, "owner": "Bank", "initial_deposit": str(opening)},
            )
