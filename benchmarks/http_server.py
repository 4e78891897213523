"""The server side of `make bench-http`: the Sluice app plus a bare FastAPI endpoint.

python -m benchmarks.http_server --database-url URL --port PORT
"""

from __future__ import annotations

import argparse
import os

import uvicorn

from gateway.bootstrap import Sluice
from gateway.demo import seed
from gateway.http.app import create_app

ACCOUNTS = [f"acct{i}" for i in range(10)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    # The benchmark measures the gateway, not its rate limits.
    os.environ.setdefault("SLUICE_CAP_REQUESTS_PER_MINUTE", "100000000")
    os.environ.setdefault("SLUICE_CAP_PROGRAMS_PER_MINUTE", "100000000")
    sluice = Sluice(args.database_url)
    seed(sluice.gateway)
    teller = sluice.gateway.authenticate("sk-demo-teller")
    for account in ACCOUNTS:
        sluice.gateway.call(
            teller, "open_account", {"account": account, "owner": "Bench", "initial_deposit": 9000}
        )
    app = create_app(sluice, projector=True)  # as `sluice serve` runs it

    @app.get("/bare", include_in_schema=False)
    def bare() -> dict[str, str]:
        return {"status": "ok"}

    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
