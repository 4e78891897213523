"""`make bench-mcp`: what MCP costs over the HTTP API, for the same work, in one run.

    python -m benchmarks.bench_mcp [--calls 200]

One served gateway (`sluice serve --demo`, SQLite) and one `sluice mcp` on the same file.
Sequential calls, one client each; p50 and p99 latency in ms, and the ratio of each MCP p50
to the HTTP API's for the same work:
- directory: GET /v1/directory against the `directory` tool;
- read program: a read-only program (completes at once) through POST /v1/programs against
  `propose_program`;
- write program: propose then confirm over HTTP with a person's key, against
  `propose_program` with the same key on a client the operator trusts
  (SLUICE_MCP_TRUSTED_CLIENTS=alice), whose form the client's elicitation callback accepts
  (the 2026-07-28 era: two tool calls, the second carrying the answer). An agent's key is
  sent a link to the console instead, and commits nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.served import serving

SLUICE = str(Path(sys.executable).parent / "sluice")
KEY = "sk-demo-alice"
PERSON = {"Authorization": f"Bearer {KEY}"}
READ = 'get_balance(account="alice")\n'
WRITE = 'transfer(payer="alice", payee="bob", amount=0.01, memo="bench")\n'


def timed(call: Callable[[], object], calls: int) -> list[float]:
    spent = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        spent.append(time.perf_counter() - start)
    return spent


async def timed_async(call: Callable[[], Awaitable[object]], calls: int) -> list[float]:
    spent = []
    for _ in range(calls):
        start = time.perf_counter()
        await call()
        spent.append(time.perf_counter() - start)
    return spent


def http_api(base: str, calls: int) -> dict[str, list[float]]:
    with httpx.Client(base_url=base, headers=PERSON, timeout=30) as client:

        def directory() -> None:
            client.get("/v1/directory").raise_for_status()

        def program(source: str) -> dict[str, Any]:
            answer = client.post("/v1/programs", json={"language": "python", "source": source})
            answer.raise_for_status()
            body: dict[str, Any] = answer.json()
            return body

        def write() -> None:
            proposal = program(WRITE)
            client.post(
                f"/v1/programs/{proposal['id']}/confirm",
                json={"preview_hash": proposal["preview_hash"]},
            ).raise_for_status()

        return {
            "directory": timed(directory, calls),
            "read program": timed(lambda: program(READ), calls),
            "write program": timed(write, calls),
        }


async def accept(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"confirm": True})


async def over_mcp(server: Any, calls: int) -> dict[str, list[float]]:
    async with Client(server, elicitation_callback=accept) as client:

        async def tool(name: str, arguments: dict[str, Any]) -> None:
            result = await client.call_tool(name, arguments)
            assert not result.is_error, result.content

        def program(source: str) -> Callable[[], Awaitable[None]]:
            return lambda: tool("propose_program", {"language": "python", "source": source})

        return {
            "directory": await timed_async(lambda: tool("directory", {}), calls),
            "read program": await timed_async(program(READ), calls),
            "write program": await timed_async(program(WRITE), calls),
        }


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            "SLUICE_DATABASE_URL": f"sqlite:///{Path(folder) / 'bench.db'}",
            "SLUICE_CAP_PROGRAMS_PER_MINUTE": "1000000",
            "SLUICE_CAP_REQUESTS_PER_MINUTE": "1000000",
            "SLUICE_MCP_TRUSTED_CLIENTS": "alice",
        }
        subprocess.run([SLUICE, "demo"], env=env, capture_output=True, check=True)
        with serving([SLUICE, "serve"], env) as base:
            results = {"HTTP API": http_api(base, args.calls)}
            http = httpx2.AsyncClient(headers=PERSON, timeout=httpx2.Timeout(30))
            results["MCP http"] = anyio.run(
                over_mcp, streamable_http_client(f"{base}/mcp", http_client=http), args.calls
            )
            stdio = StdioServerParameters(
                command=SLUICE, args=["mcp"], env={**env, "SLUICE_API_KEY": KEY}
            )
            results["MCP stdio"] = anyio.run(over_mcp, stdio, args.calls)
    print(f"{args.calls} sequential calls each; ratio = p50 / the HTTP API's p50\n")
    print(f"{'work':<15}{'interface':<11}{'p50 ms':>8}{'p99 ms':>8}{'ratio':>7}")
    for work in ("directory", "read program", "write program"):
        baseline = statistics.median(results["HTTP API"][work])
        for interface, measured in results.items():
            ratio = statistics.median(measured[work]) / baseline
            print(f"{work:<15}{interface:<11}{p(measured[work], 0.5):>8.1f}"
                  f"{p(measured[work], 0.99):>8.1f}{ratio:>7.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
