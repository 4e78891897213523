"""`make bench-deployment`: the compose layout served by real processes on this machine.

docker-compose.yml runs two gateways (`sluice serve --no-projector`), one projector (`sluice
project`) and one Postgres. Here the same processes, started by the same commands with the
same settings (`SLUICE_LOG_FORMAT=json`, the MCP state keys), on the local Postgres in a
schema of their own, beside one `sluice serve` with its projector inside (as `make run`
serves), each layout on its own store, taking turns. The demo is seeded by `sluice demo`, then
10 accounts are opened; the per-minute caps are raised, as every HTTP benchmark here does (the
clients are one teller, many at once).

Client i talks to gateway i mod 2 (a load balancer's round robin, one keep-alive connection
each). Workloads: a direct transfer; propose+confirm, both requests to one gateway; and
propose+confirm with the confirmation sent to the other gateway (what a load balancer may
do: that gateway reads the run from the store). Printed per layout, workload and client
count: operations done per second (medians of the rounds), and the CPU ms one operation cost
the gateways, the projector and Postgres; the load average is printed before and after.

    python -m benchmarks.bench_deployment [--seconds 3] [--rounds 3] [--clients 1,8]
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from benchmarks import cpu_time
from benchmarks.bench_alternative import TELLER, Client, load, measure_with
from benchmarks.http_server import ACCOUNTS
from tests.served import served_process
from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")
# As docker-compose.yml sets them (its demo-only MCP state key), and caps out of the way.
COMPOSE_ENV = {
    "SLUICE_LOG_FORMAT": "json",
    "SLUICE_MCP_STATE_KEYS": "ZGVtby1vbmx5LWtleS1yZXBsYWNlLW1lLW5vdy0xMjM0NTY",
    "SLUICE_CAP_REQUESTS_PER_MINUTE": "100000000",
    "SLUICE_CAP_PROGRAMS_PER_MINUTE": "100000000",
    "SLUICE_CAP_PROGRAMS_AT_ONCE": "100000000",
}

# One operation on the gateways of a layout, for client n: True when done (200).
Operation = Callable[[list[Client], int], bool]


def _pair() -> tuple[str, str]:
    payer, payee = random.sample(ACCOUNTS, 2)
    return payer, payee


def direct(gateways: list[Client], n: int) -> bool:
    payer, payee = _pair()
    body = {"payer": payer, "payee": payee, "amount": 1}
    return gateways[n % len(gateways)].post("/v1/use-cases/transfer", body, TELLER) == 200


def _program(gateways: list[Client], n: int, confirm_at: int) -> bool:
    payer, payee = _pair()
    source = f'transfer(payer="{payer}", payee="{payee}", amount=1)'
    proposing = gateways[n % len(gateways)]
    status, proposal = proposing.post_json(
        "/v1/programs", {"language": "python", "source": source}, TELLER
    )
    if status != 201:
        return False
    confirming = gateways[(n + confirm_at) % len(gateways)]
    body = {"preview_hash": proposal["preview_hash"]}
    return confirming.post(f"/v1/programs/{proposal['id']}/confirm", body, TELLER) == 200


WORKLOADS: dict[str, Operation] = {
    "direct transfer": direct,
    "propose+confirm": lambda gateways, n: _program(gateways, n, 0),
    "confirm elsewhere": lambda gateways, n: _program(gateways, n, 1),
}


class Layout:
    """Served processes on one store: their base URLs and the pids whose CPU counts."""

    def __init__(self, name: str, bases: list[str], gateways: list[int], projector: list[int]):
        self.name = name
        self.bases = bases
        self.gateways = gateways
        self.projector = projector


@contextmanager
def compose(stack: ExitStack) -> Iterator[Layout]:
    """Two `sluice serve --no-projector` and one `sluice project` on one new store."""
    env = _seeded(stack)
    bases, pids = [], []
    for _ in range(2):
        base, process = stack.enter_context(
            served_process([SLUICE, "serve", "--no-projector"], env)
        )
        bases.append(base)
        pids.append(process.pid)
    projector = subprocess.Popen(
        [SLUICE, "project"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _open_accounts(bases[0])
        yield Layout("compose", bases, pids, [projector.pid])
    finally:
        projector.send_signal(signal.SIGTERM)
        projector.wait(timeout=30)


@contextmanager
def one_process(stack: ExitStack) -> Iterator[Layout]:
    """One `sluice serve`, its projector inside, on one new store."""
    env = _seeded(stack)
    base, process = stack.enter_context(served_process([SLUICE, "serve"], env))
    _open_accounts(base)
    yield Layout("one serve", [base], [process.pid], [])


def _seeded(stack: ExitStack) -> dict[str, str]:
    url = stack.enter_context(empty_store("postgres", Path()))  # a schema: no folder used
    env = {**os.environ, **COMPOSE_ENV, "SLUICE_DATABASE_URL": url}
    subprocess.run([SLUICE, "demo"], env=env, check=True, capture_output=True, timeout=120)
    return env


def _open_accounts(base: str) -> None:
    client = Client(base)
    try:
        for account in ACCOUNTS:
            body = {"account": account, "owner": "Bench", "initial_deposit": 9000}
            client.post("/v1/use-cases/open_account", body, TELLER)
    finally:
        client.close()


def costed(layout: Layout, operation: Operation, clients: int, seconds: float) -> dict[str, float]:
    """Operations done per second, and the CPU ms one cost each group of processes."""
    groups: dict[str, cpu_time.Pids] = {
        "gateways": lambda: set().union(*map(cpu_time.process_tree, layout.gateways)),
        "projector": lambda: set(layout.projector),
        "db": cpu_time.postgres_pids,
    }
    done: list[float] = []
    began = time.monotonic()
    spent = cpu_time.spent(
        groups, lambda: done.append(measure_layout(layout, operation, clients, seconds))
    )
    operations = max(done[0] * (time.monotonic() - began), 1.0)
    return {"rate": done[0], **{k: v / operations * 1e3 for k, v in spent.items()}}


def measure_layout(layout: Layout, operation: Operation, clients: int, seconds: float) -> float:
    """As `bench_alternative.measure`, each client with a connection to every gateway."""
    return measure_with(
        lambda n: Gateways(n, [Client(base) for base in layout.bases]),
        lambda gateways: operation(gateways.clients, gateways.n),
        clients,
        seconds,
    ).rate


class Gateways:
    """Client n's connections, one to each gateway."""

    def __init__(self, n: int, clients: list[Client]) -> None:
        self.n = n
        self.clients = clients

    def close(self) -> None:
        for client in self.clients:
            client.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", default="1,8")
    args = parser.parse_args(argv)
    clients = [int(c) for c in args.clients.split(",")]
    print(f"# {os.cpu_count()} cores for everything; {args.rounds} rounds of {args.seconds:g} s, "
          f"medians; {load()}", flush=True)  # fmt: skip
    print(f"{'layout':<11}{'workload':<19}{'clients':>7}{'ops/s':>8}"
          f"{'gateways':>10}{'projector':>10}{'db':>7}  (CPU ms an operation)")  # fmt: skip
    with ExitStack() as stack:
        layouts = [stack.enter_context(compose(stack)), stack.enter_context(one_process(stack))]
        for workload, operation in WORKLOADS.items():
            for count in clients:
                turns: dict[str, list[dict[str, float]]] = {lay.name: [] for lay in layouts}
                for round_number in range(args.rounds):
                    order = layouts if round_number % 2 == 0 else layouts[::-1]
                    for layout in order:
                        turns[layout.name].append(costed(layout, operation, count, args.seconds))
                for layout in layouts:
                    if workload == "confirm elsewhere" and len(layout.bases) == 1:
                        continue
                    median = {
                        k: statistics.median(t[k] for t in turns[layout.name])
                        for k in turns[layout.name][0]
                    }
                    print(f"{layout.name:<11}{workload:<19}{count:>7}{median['rate']:>8.0f}"
                          f"{median['gateways']:>10.2f}{median['projector']:>10.2f}"
                          f"{median['db']:>7.2f}", flush=True)  # fmt: skip
    print(f"# {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
