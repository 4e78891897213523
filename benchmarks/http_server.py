"""The server side of `make bench-http`: the Sluice app plus a bare FastAPI endpoint.

python -m benchmarks.http_server --database-url URL --port PORT [--rate-limits memory] [--replica]
    [--cpu N] [--no-projector]
"""

from __future__ import annotations

import argparse
import os

import uvicorn

from application.rate_counter import MemoryRateCounter
from gateway.bootstrap import Sluice
from gateway.core.policy.rate import PROGRAMS, REQUESTS, RateLimiter
from gateway.demo import seed
from gateway.interfaces.http.app import create_app
from gateway.interfaces.process_cpu import bind_to_cpu

ACCOUNTS = [f"acct{i}" for i in range(10)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument(
        "--rate-limits",
        choices=["store", "memory"],
        default="store",
        help="count the per-minute caps in the store (as served), or in this process only",
    )
    parser.add_argument(
        "--replica",
        action="store_true",
        help="another process on a store the first one seeded: no seed, no projector",
    )
    parser.add_argument("--cpu", type=int, help="bound to this CPU, as `sluice serve --cpu`")
    parser.add_argument(
        "--no-projector",
        action="store_true",
        help="seeded, the read models left to `sluice project` (`sluice serve --no-projector`)",
    )
    args = parser.parse_args()
    if args.cpu is not None and (refused := bind_to_cpu(args.cpu)) is not None:
        parser.error(refused)
    # The benchmark measures the gateway, not its rate limits: its clients are one
    # principal's, many at once.
    os.environ.setdefault("SLUICE_CAP_REQUESTS_PER_MINUTE", "100000000")
    os.environ.setdefault("SLUICE_CAP_PROGRAMS_PER_MINUTE", "100000000")
    os.environ.setdefault("SLUICE_CAP_PROGRAMS_AT_ONCE", "100000000")
    sluice = Sluice(args.database_url)
    if args.rate_limits == "memory":  # the baseline the store's counters are measured against
        sluice.__dict__["request_counter"] = MemoryRateCounter(REQUESTS)
        sluice.gateway.rate = RateLimiter(
            sluice.caps.programs_per_minute, MemoryRateCounter(PROGRAMS)
        )
    if not args.replica:
        seed(sluice.gateway)
        teller = sluice.gateway.authenticate("sk-demo-teller")
        for account in ACCOUNTS:
            sluice.gateway.call(
                teller,
                "open_account",
                {"account": account, "owner": "Bench", "initial_deposit": 9000},
            )
    # As `sluice serve` runs it; replicas as `sluice serve --no-projector`.
    projected_elsewhere = args.replica or args.no_projector
    sluice.projected_elsewhere = projected_elsewhere
    app = create_app(sluice, projector=not projected_elsewhere)

    @app.get("/bare", include_in_schema=False)
    def bare() -> dict[str, str]:
        return {"status": "ok"}

    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
