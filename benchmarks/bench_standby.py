"""`make bench-standby`: read throughput with the reads on the primary alone, beside the
same reads on a hot standby (SLUICE_READ_DATABASE_URL), in one run.

A primary and a synchronous standby of the benchmark's own (tests/ha/pair.py: the machine's
PostgreSQL binaries, spare ports), and two `sluice serve` processes on them at once: one
with SLUICE_DATABASE_URL alone, one with the standby for reads too. They take turns on each
workload (the order swapped each round; the best round of each kept), so both meet the
same machine. Beside each rate, what one read cost in CPU: the gateway's process, the
primary's server processes and the standby's.

    python -m benchmarks.bench_standby [--seconds 5] [--clients 8] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

import httpx

from benchmarks import cpu_time
from benchmarks.bench_http import measure
from tests.ha.pair import Pair, postgres_pair
from tests.served import served_process

SLUICE = str(Path(sys.executable).parent / "sluice")
ALICE = {"Authorization": "Bearer sk-demo-alice"}
AUDITOR = {"Authorization": "Bearer sk-demo-auditor"}
TELLER = {"Authorization": "Bearer sk-demo-teller"}
MOVEMENTS = 200  # on alice's account, so that a statement page is a real query
Read = Callable[[httpx.Client], None]


def balance(client: httpx.Client) -> None:
    _ok(client.get("/v1/accounts/alice", headers=ALICE))


def statement(client: httpx.Client) -> None:
    _ok(client.get("/v1/accounts/alice/statement", params={"limit": 50}, headers=ALICE))


def accounts(client: httpx.Client) -> None:
    _ok(client.get("/v1/accounts", headers=AUDITOR))


READS: list[tuple[str, Read]] = [
    ("GET balance", balance),
    ("GET statement (50)", statement),
    ("GET accounts", accounts),
]


def _ok(response: httpx.Response) -> None:
    if response.status_code != 200:
        raise RuntimeError(f"{response.request.url}: {response.status_code} {response.text[:200]}")


def seed(pair: Pair, env: dict[str, str]) -> None:
    subprocess.run([SLUICE, "demo"], env=env, capture_output=True, check=True, timeout=120)
    with served_process([SLUICE, "serve"], env) as (base, _):
        with httpx.Client(base_url=base, headers=TELLER, timeout=30) as client:
            for _ in range(MOVEMENTS):
                _ok(client.post("/v1/use-cases/deposit", json={"account": "alice", "amount": 1}))
        # Until the read models hold it all, on the standby too.
        deadline = time.monotonic() + 60
        while True:
            health = httpx.get(f"{base}/health", headers=AUDITOR, timeout=30).json()
            if health["projection_lag"] == 0:
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"the read models did not catch up: {health}")
            time.sleep(0.1)
    pair.wait_streaming()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{args.clients} clients, {args.seconds:g} s a turn, best of {args.rounds} rounds")
    print("CPU ms per read: the gateway, the primary's server, the standby's\n")
    with postgres_pair(synchronous=True) as pair:
        env = {
            **os.environ,
            "SLUICE_DATABASE_URL": pair.url,
            "SLUICE_CAP_REQUESTS_PER_MINUTE": "100000000",
        }
        seed(pair, env)
        setups = {
            "primary": env,
            "standby": {**env, "SLUICE_READ_DATABASE_URL": pair.standby.url},
        }
        with ExitStack() as stack:
            servers = {
                name: stack.enter_context(served_process([SLUICE, "serve"], setup))
                for name, setup in setups.items()
            }
            print(f"{'read':<20}{'reads on':<10}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}"
                  f"{'gateway':>9}{'primary':>9}{'standby':>9}{'ratio':>7}")  # fmt: skip
            for label, read in READS:
                best = turns(pair, servers, read, args)
                baseline = best["primary"][0][0]
                for name in servers:
                    (rate, p50, p99), cpu = best[name]
                    print(f"{label:<20}{name:<10}{rate:>9.0f}{p50:>9.1f}{p99:>9.1f}"
                          f"{cpu['gateway']:>9.3f}{cpu['primary']:>9.3f}{cpu['standby']:>9.3f}"
                          f"{rate / baseline:>7.2f}")  # fmt: skip


Costed = tuple[tuple[float, float, float], dict[str, float]]


def turns(
    pair: Pair,
    servers: dict[str, tuple[str, subprocess.Popen[str]]],
    read: Read,
    args: argparse.Namespace,
) -> dict[str, Costed]:
    """Each server's best round of `read`, the servers taking turns (order swapped a round)."""
    best: dict[str, Costed] = {}
    for round_number in range(args.rounds):
        order = list(servers) if round_number % 2 == 0 else list(servers)[::-1]
        for name in order:
            base, process = servers[name]
            found = costed(
                pair, base, process.pid, read, clients=args.clients, seconds=args.seconds
            )
            if name not in best or found[0][0] > best[name][0][0]:
                best[name] = found
    return best


def costed(
    pair: Pair, base: str, server: int, read: Read, *, clients: int, seconds: float
) -> Costed:
    """`measure`, and the CPU ms one read cost the gateway and each database server."""
    groups: dict[str, cpu_time.Pids] = {
        "gateway": lambda: cpu_time.process_tree(server),
        "primary": lambda: cpu_time.process_tree(pair.primary.postmaster_pid()),
        "standby": lambda: cpu_time.process_tree(pair.standby.postmaster_pid()),
    }
    result: list[tuple[float, float, float]] = []
    started = time.monotonic()
    spent = cpu_time.spent(groups, lambda: result.append(measure(base, read, clients, seconds)))
    reads = result[0][0] * (time.monotonic() - started)
    return result[0], {name: value / reads * 1e3 for name, value in spent.items()}


if __name__ == "__main__":
    main()
