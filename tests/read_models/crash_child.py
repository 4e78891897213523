"""Run by test_crash: catch up the balances, and stop for good in the middle of the 3rd batch.

The batch's window is claimed and its rows written, not committed: the process then waits
inside the transaction, where the test kills it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from application.read_models.rows import BalanceChange
from application.read_models.service import LIVE, ReadModels, open_read_model_store
from application.read_models.store import Window
from gateway.bootstrap import Sluice

# Names the statement the Postgres child waits in, so the test can see when it has ended.
MARK = "sluice-crash-child"


def main() -> None:
    with Sluice(sys.argv[1]) as sluice:
        view: Any = open_read_model_store(sluice.ledger, LIVE)
        batches = 0
        original = view.apply_balances

        def apply_and_hang(changes: Sequence[BalanceChange], window: Window) -> None:
            nonlocal batches
            batches += 1
            if batches < 3:
                original(changes, window)
                return
            hang_inside_the_transaction(view, changes, window)

        view.apply_balances = apply_and_hang
        ReadModels(sluice.ledger, view, window=10).catch_up(["balances"])


def hang_inside_the_transaction(
    view: Any, changes: Sequence[BalanceChange], window: Window
) -> None:
    if type(view).__name__.startswith("SQLite"):
        # The window claimed and its rows written; the commit never comes.
        transaction = view.datastore.transaction

        @contextmanager
        def announce_then_wait(*, commit: bool) -> Iterator[Any]:
            with transaction(commit=commit) as cursor:
                yield cursor
                print("IN-TRANSACTION", flush=True)
                time.sleep(60)

        view.datastore.transaction = announce_then_wait
        type(view).apply_balances(view, changes, window)
        return
    # Postgres: the claim and the window's rows, then a statement that waits, never the commit.
    write = view._write

    def write_then_wait(statements: list[Any], window: Window, **options: Any) -> None:
        print("IN-TRANSACTION", flush=True)
        write(
            [
                *statements,
                (f"SELECT pg_sleep(60) /* {MARK} */ WHERE cardinality($1::int[]) = 1", [[1]]),
            ],
            window,
            **options,
        )

    view._write = write_then_wait
    type(view).apply_balances(view, changes, window)


if __name__ == "__main__":
    main()
