"""Run by test_crash: catch up the balances, and stop for good in the middle of the 3rd batch.

The batch's rows are written, its tracking not yet: the process then waits inside the
transaction, where the test kills it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import Tracking

from application.read_models.rows import BalanceChange
from application.read_models.service import LIVE, ReadModels, open_view
from gateway.bootstrap import Sluice


def main() -> None:
    with Sluice(sys.argv[1]) as sluice:
        view: Any = open_view(sluice.ledger, LIVE)
        batches = 0
        original = view.apply_balances

        def apply_and_hang(changes: Sequence[BalanceChange], tracking: Tracking) -> None:
            nonlocal batches
            batches += 1
            if batches < 3:
                original(changes, tracking)
                return
            hang_inside_the_transaction(view, changes, tracking)

        view.apply_balances = apply_and_hang
        ReadModels(sluice.ledger, view, window=10).catch_up(["balances"])


def hang_inside_the_transaction(
    view: Any, changes: Sequence[BalanceChange], tracking: Tracking
) -> None:
    if hasattr(view, "datastore") and type(view).__name__.startswith("SQLite"):
        insert_tracking = view._insert_tracking

        def announce_then_wait(cursor: Any, tracking: Tracking) -> None:
            print("IN-TRANSACTION", flush=True)
            time.sleep(60)
            insert_tracking(cursor, tracking)

        view._insert_tracking = announce_then_wait
        type(view).apply_balances(view, changes, tracking)
        return
    # Postgres: the batch's rows, then a statement that waits, then (never) the tracking.
    write = view._write

    def write_then_wait(statements: list[Any], tracking: Tracking) -> None:
        print("IN-TRANSACTION", flush=True)
        write(
            [*statements, ("SELECT pg_sleep(60) WHERE cardinality($1::int[]) = 1", [[1]])], tracking
        )

    view._write = write_then_wait
    type(view).apply_balances(view, changes, tracking)


if __name__ == "__main__":
    main()
