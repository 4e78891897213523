"""`make bench-alternative`: Sluice beside what a user would write instead, on one Postgres.

The alternative (`benchmarks.alternative_server`) is a small FastAPI service on eventsourcing's
own `Application` and `eventsourcing.postgres`, served by uvicorn in a process of its own, as
Sluice is (`benchmarks.http_server`: `sluice serve`'s app with its projector, seeded with the
demo and 10 accounts). Each has a fresh schema of the same server. Two workloads:

- transfer: a direct transfer of 1 between two of 10 accounts (Sluice: `POST
  /v1/use-cases/transfer` with the teller's key; the alternative: `POST /transfer`);
- balance: alice's balance (Sluice: `GET /v1/accounts/alice` with her key; the alternative:
  `GET /accounts/alice`, the account loaded by its repository).

Only answers of 200 count as done (a conflict or any other refusal is counted apart). For
each workload and client count the two servers take turns, `--rounds` times (the order
swapped each round), `--seconds` a turn; the figures are the medians of the rounds. The
alternative has no authentication, no caps, no audit record, no idempotency and no read
models: Sluice does all of that in the same requests. The clients are the standard library's
http.client, one keep-alive connection each: a thin client takes less of the cores the
servers share than httpx does.

A third server takes its turns too (unless `--floor off`), what neither can beat on this
stack: one asyncpg statement behind a bare FastAPI route for the balance, one durable commit
of two rows for the transfer (`benchmarks.floor_server`); its rate is printed as a comment
line beside the ratio of each round.

One line per workload and client count:

    WORKLOAD CLIENTS: sluice N/s, alternative M/s, ratio R

    python -m benchmarks.bench_alternative [--seconds 3] [--rounds 5] [--clients 1,8]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar
from urllib.parse import urlsplit

from benchmarks.bench_store import fresh_schema, server_env
from benchmarks.http_server import ACCOUNTS
from tests.postgres import support
from tests.served import served_process
from tests.stores import empty_store

ALICE = {"Authorization": "Bearer sk-demo-alice"}
TELLER = {"Authorization": "Bearer sk-demo-teller"}
SIDES = ("sluice", "alternative")


class Client:
    """One keep-alive HTTP/1.1 connection (the standard library's): a thin client, so that
    the load takes as little as it can of the cores the servers share."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)

    def get(self, path: str, headers: dict[str, str] | None = None) -> int:
        return self._ask("GET", path, None, headers or {})[0]

    def post(self, path: str, body: object, headers: dict[str, str] | None = None) -> int:
        return self.post_json(path, body, headers)[0]

    def post_json(
        self, path: str, body: object, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        """The status and, for a 2xx, the answer's JSON."""
        data = json.dumps(body).encode()
        return self._ask("POST", path, data, {**(headers or {}), **JSON})

    def _ask(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> tuple[int, Any]:
        self.connection.request(method, path, body, headers)
        response = self.connection.getresponse()
        text = response.read()
        if response.status in (200, 201):
            return response.status, json.loads(text)
        if response.status in (409, 503):  # a conflict or a busy store: not done, not wrong
            return response.status, None
        raise RuntimeError(f"{method} {path}: {response.status} {text[:200]!r}")

    def close(self) -> None:
        self.connection.close()


JSON = {"Content-Type": "application/json"}

# One operation on a client: True when it was done (200).
Operation = Callable[[Client], bool]
C = TypeVar("C", bound="Closing")


class Closing(Protocol):
    def close(self) -> None: ...


def _pair() -> dict[str, object]:
    payer, payee = random.sample(ACCOUNTS, 2)
    return {"payer": payer, "payee": payee, "amount": 1}


WORKLOADS: dict[str, dict[str, Operation]] = {
    "transfer": {
        "sluice": lambda c: c.post("/v1/use-cases/transfer", _pair(), TELLER) == 200,
        "alternative": lambda c: c.post("/transfer", _pair()) == 200,
        "floor": lambda c: c.post("/transfer", _pair()) == 200,
    },
    "balance": {
        "sluice": lambda c: c.get("/v1/accounts/alice", ALICE) == 200,
        "alternative": lambda c: c.get("/accounts/alice") == 200,
        "floor": lambda c: c.get("/accounts/alice") == 200,
    },
}


FLOORS = {"balance": "one asyncpg statement", "transfer": "one durable commit of two rows"}


@dataclass
class Turn:
    rate: float  # operations done per second
    refused: int  # answers that were not 200 (conflicts, busy)


def measure(base: str, operation: Operation, clients: int, seconds: float) -> Turn:
    """Operations done per second from `clients` threads, each with its own connection."""
    return measure_with(lambda _: Client(base), operation, clients, seconds)


def measure_with(
    connect: Callable[[int], C], operation: Callable[[C], bool], clients: int, seconds: float
) -> Turn:
    """As `measure`, client n's connection made by `connect(n)`."""
    counts = [0] * clients
    refused = [0] * clients
    barrier = threading.Barrier(clients + 1)
    stop = [0.0]

    def client(n: int) -> None:
        http = connect(n)
        try:
            operation(http)  # the connection opened before the clock starts
            barrier.wait()
            while time.perf_counter() < stop[0]:
                if operation(http):
                    counts[n] += 1
                else:
                    refused[n] += 1
        except BaseException:
            barrier.abort()  # the others do not wait for this one, and the run fails
            raise
        finally:
            http.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    began = time.perf_counter()
    stop[0] = began + seconds
    barrier.wait()
    for thread in threads:
        thread.join()
    if barrier.broken:
        raise RuntimeError("a client failed: see its traceback above")
    return Turn(sum(counts) / (time.perf_counter() - began), sum(refused))


@contextmanager
def sluice_server(stack: ExitStack) -> Iterator[str]:
    url = stack.enter_context(empty_store("postgres", Path()))  # a schema: no folder used
    argv = [sys.executable, "-m", "benchmarks.http_server", "--database-url", url]
    with served_process(argv, dict(os.environ)) as (base, _):
        yield base


@contextmanager
def alternative_server(stack: ExitStack, cache: bool) -> Iterator[str]:
    url = support.database_url()
    schema = stack.enter_context(fresh_schema(url, "alternative"))
    env = {
        **os.environ,
        **server_env(url),
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_SCHEMA": schema,
        "CREATE_TABLE": "y",
    }
    if cache:
        env["AGGREGATE_CACHE_MAXSIZE"] = "1000"
    argv = [sys.executable, "-m", "benchmarks.alternative_server",
            "--accounts", ",".join([*ACCOUNTS, "alice"])]  # fmt: skip
    with served_process(argv, env) as (base, _):
        yield base


@contextmanager
def floor_server(stack: ExitStack) -> Iterator[str]:
    argv = [sys.executable, "-m", "benchmarks.floor_server", "--database-url",
            support.database_url()]  # fmt: skip
    with served_process(argv, dict(os.environ)) as (base, _):
        yield base


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


def run(
    bases: dict[str, str], clients: Sequence[int], seconds: float, rounds: int
) -> dict[tuple[str, int], dict[str, list[Turn]]]:
    """Every workload and client count, the sides taking turns `rounds` times."""
    turns: dict[tuple[str, int], dict[str, list[Turn]]] = {}
    for workload, operations in WORKLOADS.items():
        for count in clients:
            sides = [side for side in operations if side in bases]
            taken = turns[workload, count] = {side: [] for side in sides}
            for round_number in range(rounds):
                order = sides if round_number % 2 == 0 else sides[::-1]
                for side in order:
                    taken[side].append(measure(bases[side], operations[side], count, seconds))
    return turns


def line(workload: str, clients: int, sluice: float, alternative: float) -> str:
    """The contract line: `WORKLOAD CLIENTS: sluice N/s, alternative M/s, ratio R`."""
    ratio = sluice / alternative if alternative else float("inf")
    return (
        f"{workload} {clients}: sluice {sluice:.0f}/s, alternative {alternative:.0f}/s, "
        f"ratio {ratio:.2f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--clients", default="1,8")
    parser.add_argument(
        "--floor",
        choices=["on", "off"],
        default="on",
        help="serve each workload's floor too (benchmarks.floor_server), taking turns",
    )
    parser.add_argument(
        "--alternative-cache",
        choices=["on", "off"],
        default="on",
        help="the alternative's aggregate cache (AGGREGATE_CACHE_MAXSIZE): on by default",
    )
    args = parser.parse_args(argv)
    clients = [int(c) for c in args.clients.split(",")]
    print(f"# {args.rounds} rounds of {args.seconds:g} s a side, medians; {load()}", flush=True)
    with ExitStack() as stack:
        bases = {
            "sluice": stack.enter_context(sluice_server(stack)),
            "alternative": stack.enter_context(
                alternative_server(stack, args.alternative_cache == "on")
            ),
        }
        if args.floor == "on":
            bases["floor"] = stack.enter_context(floor_server(stack))
        turns = run(bases, clients, args.seconds, args.rounds)
    for (workload, count), sides in turns.items():
        rates = {side: statistics.median(t.rate for t in sides[side]) for side in SIDES}
        print(line(workload, count, rates["sluice"], rates["alternative"]))
    for (workload, count), sides in turns.items():
        each = [s.rate / a.rate for s, a in zip(sides["sluice"], sides["alternative"], strict=True)]
        print(f"# {workload} {count}: ratio of each round {min(each):.2f} to {max(each):.2f}")
        if "floor" in sides:
            floor = statistics.median(t.rate for t in sides["floor"])
            alternative = statistics.median(t.rate for t in sides["alternative"])
            print(
                f"# {workload} {count}: floor {floor:.0f}/s ({FLOORS[workload]} behind a bare "
                f"FastAPI route), {floor / alternative:.2f} of the alternative"
            )
    refused = {
        f"{workload} {count} {side}": sum(t.refused for t in taken)
        for (workload, count), sides in turns.items()
        for side, taken in sides.items()
        if any(t.refused for t in taken)
    }
    print(f"# not done (409/503): {refused or 'none'}; {load()}")
    print("# the alternative has no authentication, caps, audit record or idempotency")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
