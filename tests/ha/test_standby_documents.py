"""A hot standby's read-model store (SLUICE_READ_DATABASE_URL) reads the records of a
domain's declared read models that its primary wrote, as it reads the bank's tables."""

from __future__ import annotations

import time
from typing import Any

import pytest

from application.ledger import Ledger
from application.read_models.rows import DocumentChange, DocumentRow
from application.read_models.service import LIVE, open_read_model_store, open_standby_store
from application.read_models.store import Window
from application.store_config import eventsourcing_env, standby_env
from tests.ha.pair import Pair

pytestmark = pytest.mark.ha

ORDERS = "orders"


def test_a_standby_reads_the_records_its_primary_wrote(pair: Pair) -> None:
    name = f"shop:{LIVE}{ORDERS}"
    with Ledger(env=eventsourcing_env(pair.url)) as ledger:
        primary = open_read_model_store(ledger, LIVE)
        primary.apply_documents(
            [
                DocumentChange(ORDERS, "o-2", "bob", '{"total": 2}'),
                DocumentChange(ORDERS, "o-1", None, '{"total": 1}'),
            ],
            Window(name, 0, 2),
        )
        standby: Any = open_standby_store(ledger, standby_env(pair.standby.url, pair.url), LIVE)
        try:
            replayed(pair)

            assert standby.positions([name]) == {name: 2}
            assert standby.documents(ORDERS, owners=["ann"]) == [
                DocumentRow(ORDERS, "o-1", None, '{"total": 1}')
            ]
            assert standby.documents(ORDERS) == primary.documents(ORDERS)
        finally:
            standby.close()


def replayed(pair: Pair) -> None:
    """Until the standby has replayed all the primary has written (a synchronous commit
    waits for the standby to keep the WAL, not to replay it)."""
    written = pair.primary.query("SELECT pg_current_wal_lsn()::text")
    deadline = time.monotonic() + 30
    while not pair.standby.query("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", written):
        assert time.monotonic() < deadline, "the standby did not replay the primary's writes"
        time.sleep(0.05)
