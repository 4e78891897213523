"""`make bench-replay`: rebuild the balances read model from N events (default 1,000,000), on
SQLite and on Postgres, beside a raw sequential read of the same events in the same run.

    python -m benchmarks.bench_replay [--events 1000000] [--store sqlite|postgres|both]

The raw read pages through the log (select_notifications, the balances' topics) and does
nothing with the rows; the rebuild pages the same way, decodes, folds and writes the model
with its tracking, one transaction per window. Target: rebuild >= 50% of the raw read.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

from application.bank.projections import ACCOUNT_TOPICS
from application.ledger import Ledger
from application.read_models.service import ReadModels, open_read_model_store
from application.store_config import eventsourcing_env
from domain.account import Account
from tests.stores import empty_store

ACCOUNTS = 10_000
WINDOW = 50_000


def fill(ledger: Ledger, events: int) -> None:
    """ACCOUNTS openings, then deposits spread over them, saved 2,000 events at a time."""
    accounts = [Account(account=f"a{i}", owner="Bench") for i in range(min(ACCOUNTS, events))]
    for start in range(0, len(accounts), 2000):
        ledger.save(*accounts[start : start + 2000])
    left = events - len(accounts)
    one = Decimal("1.00")
    while left > 0:
        batch = min(left, 2000)
        for i in range(batch):
            accounts[(left - i) % len(accounts)].deposit(one, "")
        ledger.save(*accounts)
        left -= batch


def raw_read(ledger: Ledger, head: int) -> float:
    start = time.perf_counter()
    position = 0
    while position < head:
        stop = min(head, position + WINDOW)
        ledger.recorder.select_notifications(position + 1, WINDOW, stop=stop, topics=ACCOUNT_TOPICS)
        position = stop
    return time.perf_counter() - start


def rebuild(ledger: Ledger) -> float:
    models = ReadModels(
        ledger, open_read_model_store(ledger, f"bench{uuid.uuid4().hex[:6]}_"), window=WINDOW
    )
    start = time.perf_counter()
    models.catch_up(["balances"])
    return time.perf_counter() - start


@contextmanager
def store(kind: str) -> Iterator[str]:
    """An empty store of the kind, in a temporary folder or a schema, gone afterwards."""
    with tempfile.TemporaryDirectory() as folder, empty_store(kind, Path(folder)) as url:
        yield url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--store", choices=["sqlite", "postgres", "both"], default="both")
    args = parser.parse_args()
    kinds = ["sqlite", "postgres"] if args.store == "both" else [args.store]
    print(f"{args.events:,} events over {ACCOUNTS:,} accounts, windows of {WINDOW:,}\n")
    print(f"{'store':<10}{'raw read ev/s':>15}{'rebuild ev/s':>15}{'ratio':>8}")
    for kind in kinds:
        with store(kind) as url, Ledger(env=eventsourcing_env(url)) as ledger:
            filled = time.perf_counter()
            fill(ledger, args.events)
            head = ledger.recorder.max_notification_id() or 0
            print(f"  ({kind}: wrote {head:,} events in {time.perf_counter() - filled:.0f} s)")
            raw_read(ledger, head)  # warm the caches alike for both
            raw = raw_read(ledger, head)
            built = rebuild(ledger)
            print(f"{kind:<10}{head / raw:>15,.0f}{head / built:>15,.0f}{raw / built:>8.2f}")


if __name__ == "__main__":
    main()
