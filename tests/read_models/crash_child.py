"""Run by test_crash: catch up the read models, and stop for good inside a transaction.

`balances` (the default): the balances alone, stopping in the middle of the 3rd batch.
`together`: every read model, stopping in the first window the three write together.
The window is claimed and its rows written, not committed: the process then waits
inside the transaction, where the test kills it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from application.bank.read_models import BANK_READ_MODELS
from application.read_models.rows import DocumentChange
from application.read_models.service import LIVE, ReadModels, open_read_model_store
from application.read_models.store import Window, WindowWrite
from gateway.bootstrap import Sluice

# Names the statement the Postgres child waits in, so the test can see when it has ended.
MARK = "sluice-crash-child"


def main() -> None:
    mode = sys.argv[2] if len(sys.argv) > 2 else "balances"
    with Sluice(sys.argv[1]) as sluice:
        view: Any = open_read_model_store(sluice.ledger, LIVE)
        if mode == "together":
            view.write = lambda writes: write_all_and_hang(view, writes)
            ReadModels(sluice.ledger, declared=BANK_READ_MODELS, view=view, window=10).catch_up()
            return
        batches = 0
        original = view.apply_documents  # the balances' records

        def apply_and_hang(changes: Sequence[DocumentChange], window: Window) -> None:
            nonlocal batches
            batches += 1
            if batches < 3:
                original(changes, window)
                return
            hang_inside_the_transaction(view, [WindowWrite(window, documents=changes)])

        view.apply_documents = apply_and_hang
        ReadModels(sluice.ledger, declared=BANK_READ_MODELS, view=view, window=10).catch_up(
            ["balances"]
        )


def write_all_and_hang(view: Any, writes: Sequence[WindowWrite]) -> None:
    """A window of every read model at once hangs; any other is written."""
    if len(writes) < 3:
        type(view).write(view, writes)
        return
    hang_inside_the_transaction(view, writes)


def hang_inside_the_transaction(view: Any, writes: Sequence[WindowWrite]) -> None:
    if type(view).__name__.startswith("SQLite"):
        # The windows claimed and their rows written; the commit never comes.
        transaction = view.datastore.transaction

        @contextmanager
        def announce_then_wait(*, commit: bool) -> Iterator[Any]:
            with transaction(commit=commit) as cursor:
                yield cursor
                print("IN-TRANSACTION", flush=True)
                time.sleep(60)

        view.datastore.transaction = announce_then_wait
        type(view).write(view, writes)
        return
    # Postgres: the apply function's call (the claims and the windows' rows) in a
    # transaction, then a statement that waits, never the commit. The test sees the
    # statement start (pg_stat_activity).
    arguments = view._arguments(writes)

    async def apply_then_wait(conn: Any) -> None:
        async with conn.transaction():
            await conn.execute(view._apply_call, *arguments.arrays)
            await conn.execute(f"SELECT pg_sleep(60) /* {MARK} */")

    print("IN-TRANSACTION", flush=True)
    view.datastore.run(apply_then_wait, idempotent=False)


if __name__ == "__main__":
    main()
