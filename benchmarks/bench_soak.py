"""`make bench-soak`: a served gateway under steady mixed load; does its memory stay flat?

    python -m benchmarks.bench_soak [--seconds 180] [--clients 4] [--interval 5]
                                    [--store sqlite|postgres|both]

Each client thread loops over a realistic mix: an authenticated GET of a balance, a direct
transfer, a program proposed then confirmed, and (one thread) an MCP session that lists the
directory and proposes a read program, then ends. Every `--interval` seconds the server
process's resident memory (VmRSS in /proc/PID/status) is sampled beside the number of
requests served so far. It prints the samples, the answers by status, and the slope of RSS
in KB per 1,000 requests over the second half of the run (the first half warms up caches,
pools and the allocator): near 0 is flat; a leak shows as a steady positive slope.

Postgres comes from SLUICE_TEST_DATABASE_URL (default postgresql://postgres@127.0.0.1/postgres);
the benchmark works in a schema of its own and drops it afterwards.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from benchmarks.bench_http import ALICE, TELLER, store
from benchmarks.http_server import ACCOUNTS
from tests.served import served_process

AGENT = "sk-agent-demo-alice"
READ = 'get_balance(account="alice")\n'


@dataclass
class Tally:
    """Requests sent and answers by status, shared by the client threads."""

    requests: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, status: int | str) -> None:
        with self.lock:
            self.requests += 1
            self.statuses[str(status)] += 1


def http_mix(client: httpx.Client, tally: Tally) -> None:
    """One round of the HTTP mix: 2 reads, a direct transfer, a proposal and its confirm."""

    def sent(response: httpx.Response) -> httpx.Response:
        tally.count(response.status_code)
        return response

    sent(client.get("/v1/accounts/alice", headers=ALICE))
    sent(client.get(f"/v1/accounts/{random.choice(ACCOUNTS)}", headers=TELLER))
    payer, payee = random.sample(ACCOUNTS, 2)
    body = {"payer": payer, "payee": payee, "amount": 1}
    sent(client.post("/v1/use-cases/transfer", headers=TELLER, json=body))
    payer, payee = random.sample(ACCOUNTS, 2)
    source = f'transfer(payer="{payer}", payee="{payee}", amount=1)'
    program = {"language": "python", "source": source}
    proposal = sent(client.post("/v1/programs", headers=TELLER, json=program))
    if proposal.status_code == 201:
        shown = proposal.json()
        confirm = {"preview_hash": shown["preview_hash"]}
        sent(client.post(f"/v1/programs/{shown['id']}/confirm", headers=TELLER, json=confirm))


async def mcp_session(base: str, tally: Tally) -> None:
    """One MCP client session: open, two tool calls, close (the SDK sends DELETE)."""

    async def counted(request: httpx2.Request) -> None:
        tally.count("mcp")

    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {AGENT}"},
        timeout=httpx2.Timeout(30),
        event_hooks={"request": [counted]},
    )
    async with Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
        for name, arguments in (
            ("directory", {}),
            ("propose_program", {"language": "python", "source": READ}),
        ):
            result = await client.call_tool(name, arguments)
            if result.is_error:
                tally.statuses["mcp tool error"] += 1


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def slope_per_1000(samples: list[tuple[float, int, int]]) -> float:
    """Least-squares slope of RSS (KB) against requests, per 1,000 requests."""
    xs = [float(requests) for _, requests, _ in samples]
    ys = [float(rss) for _, _, rss in samples]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    if spread == 0:
        return 0.0
    return 1000 * sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / spread


def soak(base: str, pid: int, clients: int, seconds: float, interval: float) -> None:
    tally = Tally()
    stop = time.monotonic() + seconds
    failures: list[BaseException] = []

    def keep_going(work: Callable[[], Any]) -> Callable[[], None]:
        def loop() -> None:
            try:
                while time.monotonic() < stop:
                    work()
            except BaseException as error:  # reported after the run, not lost in a thread
                failures.append(error)

        return loop

    def http_client() -> None:
        with httpx.Client(base_url=base, timeout=30) as client:
            keep_going(lambda: http_mix(client, tally))()

    workers = [threading.Thread(target=http_client) for _ in range(clients)]
    workers.append(threading.Thread(target=keep_going(lambda: anyio.run(mcp_session, base, tally))))
    started = time.monotonic()
    samples = [(0.0, 0, rss_kb(pid))]
    for worker in workers:
        worker.start()
    print(f"{'t s':>6}{'requests':>10}{'RSS MB':>9}")
    print(f"{0:>6.0f}{0:>10}{samples[0][2] / 1024:>9.1f}")
    while any(worker.is_alive() for worker in workers):
        time.sleep(min(interval, max(0.0, stop - time.monotonic()) + 0.5))
        sample = (time.monotonic() - started, tally.requests, rss_kb(pid))
        samples.append(sample)
        print(f"{sample[0]:>6.0f}{sample[1]:>10}{sample[2] / 1024:>9.1f}", flush=True)
    for worker in workers:
        worker.join()
    if failures:
        raise RuntimeError(f"{len(failures)} client(s) stopped: {failures[0]!r}")
    elapsed = samples[-1][0]
    second_half = [s for s in samples if s[0] >= elapsed / 2]
    first, last, most = samples[0][2], samples[-1][2], max(s[2] for s in samples)
    print(f"answers: {dict(sorted(tally.statuses.items()))}")
    print(
        f"{tally.requests} requests in {elapsed:.0f} s ({tally.requests / elapsed:.0f}/s); "
        f"RSS {first / 1024:.1f} -> {last / 1024:.1f} MB (max {most / 1024:.1f}); "
        f"slope over the second half: {slope_per_1000(second_half):.1f} KB per 1,000 requests"
    )


@contextmanager
def server(database_url: str) -> Iterator[tuple[str, int]]:
    argv = [sys.executable, "-m", "benchmarks.http_server", "--database-url", database_url]
    with served_process(argv, dict(os.environ)) as (base, process):
        yield base, process.pid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--interval", type=float, default=5.0)
    parser.add_argument("--store", choices=["sqlite", "postgres", "both"], default="both")
    args = parser.parse_args()
    kinds = ["sqlite", "postgres"] if args.store == "both" else [args.store]
    for kind in kinds:
        print(f"\n{kind}: {args.clients} HTTP clients and 1 MCP client for {args.seconds:g} s")
        with store(kind) as url, server(url) as (base, pid):
            soak(base, pid, args.clients, args.seconds, args.interval)


if __name__ == "__main__":
    main()
