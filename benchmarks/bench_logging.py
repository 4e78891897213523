"""`make bench-logging`: does a stream of 500s slow the rest of the server down?

One `sluice serve --demo` on SQLite (its stderr, the log, to a file); /health is asked over
and over by one client in three phases of equal length, side by side in one run:
- quiet: nothing else;
- 200s: CLIENTS clients list bob's accounts (a read that succeeds) as fast as they can;
- 500s: the same clients list alice's, whose balance row was spoiled (the server cannot
  read it: each request is a 500, logged with its traceback).
It reports /health's median and p95 in each, their ratio to quiet, and how many of the
stream's requests were answered. The 200s phase separates the cost of the load from the
cost of the errors.

    python -m benchmarks.bench_logging [--seconds 10] [--clients 4] [--sluice PATH]
                                       [--log file|slow-pipe] [--pipe-rate BYTES]

--sluice runs another build (another checkout's .venv/bin/sluice), to compare. --log
slow-pipe gives the server a pipe for stderr, read at --pipe-rate bytes a second (a log
collector that falls behind) instead of a file.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.served import served_process

SLUICE = str(Path(sys.executable).parent / "sluice")
ALICE = {"Authorization": "Bearer sk-demo-alice"}
BOB = {"Authorization": "Bearer sk-demo-bob"}
PAUSE = 0.01  # between two /health requests
SPOIL = (
    "UPDATE rm_documents SET body = json_set(body, '$.balance', 'x') "
    "WHERE projection = 'balances' AND json_extract(body, '$.account') = 'alice'"
)


@dataclass
class Stream:
    """CLIENTS threads asking one thing until told to stop; what they got, by status (0: the
    connection was closed without an answer)."""

    base: str
    headers: dict[str, str]
    clients: int
    statuses: dict[int, int] = field(default_factory=dict)
    stopping: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self) -> list[threading.Thread]:
        threads = [threading.Thread(target=self._client) for _ in range(self.clients)]
        for thread in threads:
            thread.start()
        return threads

    def _client(self) -> None:
        with httpx.Client(base_url=self.base, headers=self.headers, timeout=120) as client:
            while not self.stopping.is_set():
                try:
                    status = client.get("/v1/accounts").status_code
                except httpx.TransportError:  # the server closed the connection: counted as 0
                    status = 0
                with self.lock:
                    self.statuses[status] = self.statuses.get(status, 0) + 1


class SlowReader(threading.Thread):
    """Reads a FIFO at `rate` bytes a second until its writer closes it."""

    def __init__(self, path: Path, rate: float) -> None:
        super().__init__(daemon=True)
        self.path, self.rate, self.bytes = path, rate, 0

    def run(self) -> None:
        with self.path.open("rb", buffering=0) as fifo:
            while chunk := fifo.read(16384):
                self.bytes += len(chunk)
                time.sleep(len(chunk) / self.rate)


def health(base: str, seconds: float) -> list[float]:
    """/health's latencies in seconds, asked one after another for `seconds`."""
    latencies = []
    with httpx.Client(base_url=base, timeout=120) as client:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            started = time.perf_counter()
            response = client.get("/health")
            latencies.append(time.perf_counter() - started)
            if response.status_code != 200:
                raise RuntimeError(f"/health: {response.status_code} {response.text[:200]}")
            time.sleep(PAUSE)
    return latencies


def phase(base: str, seconds: float, stream: Stream | None) -> tuple[list[float], dict[int, int]]:
    threads = stream.run() if stream else []
    try:
        time.sleep(min(1.0, seconds / 10))  # the stream under way
        latencies = health(base, seconds)
    finally:
        if stream:
            stream.stopping.set()
        for thread in threads:
            thread.join()
    return latencies, dict(stream.statuses) if stream else {}


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    parser.add_argument("--clients", type=int, default=4, help="clients in the stream")
    parser.add_argument("--sluice", default=SLUICE, help="the sluice command to serve")
    parser.add_argument("--log", choices=["file", "slow-pipe"], default="file")
    parser.add_argument("--pipe-rate", type=float, default=256 * 1024, help="bytes a second")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "sluice.db"
        log = Path(folder) / "stderr.log"
        env = {
            **os.environ,
            "SLUICE_DATABASE_URL": f"sqlite:///{db}",
            "SLUICE_CAP_REQUESTS_PER_MINUTE": "100000000",
        }
        # The log of errors alone (no access line per request), as JSON lines.
        env |= {"SLUICE_LOG_LEVEL": "WARNING", "SLUICE_LOG_FORMAT": "json"}
        reader = None
        if args.log == "slow-pipe":
            os.mkfifo(log)
            reader = SlowReader(log, args.pipe_rate)
            reader.start()
        with served_process([args.sluice, "serve", "--demo"], env, errors=log) as (base, _):
            httpx.get(f"{base}/v1/accounts", headers=ALICE, timeout=30).raise_for_status()
            with sqlite3.connect(db) as spoiled:  # alice's reads now fail: a 500 each
                spoiled.execute(SPOIL)
            results = {
                "quiet": phase(base, args.seconds, None),
                "200s": phase(base, args.seconds, Stream(base, BOB, args.clients)),
                "500s": phase(base, args.seconds, Stream(base, ALICE, args.clients)),
            }
        if reader:
            reader.join(30)
        logged = reader.bytes if reader else log.stat().st_size

    where = "a file" if reader is None else f"a pipe read at {args.pipe_rate / 1024:.0f} KiB/s"
    print(f"{args.sluice} serve, SQLite, its log to {where}; /health asked every "
          f"{PAUSE * 1000:.0f} ms for {args.seconds:.0f} s a phase; the stream: "
          f"{args.clients} clients")  # fmt: skip
    print("| phase | /health answers | median ms | p95 ms | x quiet (median) | x quiet (p95) "
          "| stream answers (by status) |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---|")
    quiet_median = statistics.median(results["quiet"][0])
    quiet_p95 = p95(results["quiet"][0])
    for name, (latencies, statuses) in results.items():
        median, high = statistics.median(latencies), p95(latencies)
        stream = ", ".join(f"{n} x {status}" for status, n in sorted(statuses.items())) or "-"
        print(f"| {name} | {len(latencies)} | {median * 1000:.1f} | {high * 1000:.1f} "
              f"| {median / quiet_median:.2f} | {high / quiet_p95:.2f} | {stream} |")  # fmt: skip
    print(f"The log: {logged:,} bytes{'' if reader is None else ' read'}")


if __name__ == "__main__":
    main()
