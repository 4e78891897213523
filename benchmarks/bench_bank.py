"""`make bench-bank`: the bank test at length. N gateway processes on one Postgres database,
concurrent clients making transfers (direct, and programs proposed then confirmed), rounds
of faults (every gateway's sessions terminated, a link cut, a gateway killed with SIGKILL),
then the books checked from the log; prints the figures.

    python -m benchmarks.bench_bank [--processes 3] [--clients 6] [--seconds 120]

Postgres comes from SLUICE_TEST_DATABASE_URL (default postgresql://postgres@127.0.0.1/postgres);
the run works in a schema of its own and drops it afterwards.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from tests.bank.harness import Settings, run_bank


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--no-faults", action="store_true", help="The same load, no nemesis.")
    args = parser.parse_args()
    settings = Settings(
        processes=args.processes,
        clients=args.clients,
        seconds=args.seconds,
        faults=not args.no_faults,
    )
    with tempfile.TemporaryDirectory(prefix="sluice-bank-") as folder:
        report = run_bank(settings, Path(folder), say=lambda line: print(f"  {line}", flush=True))
    print("\n".join(report.lines()))
    sys.exit(0 if report.ok else 1)


if __name__ == "__main__":
    main()
