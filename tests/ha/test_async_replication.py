"""What asynchronous replication risks, and what Sluice does about it.

The primary acknowledges a commit before its standby has it: a transfer answered 200 just
before the primary dies may be missing after the failover (docs/high-availability.md says
so). What must not follow is worse: a gateway that remembers the lost transfer (its
accounts cache) must not write on top of it. A new connection that reaches another server
makes the gateway forget what it cached, so its next write starts from what the new
primary holds."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import httpx
import pytest

from application.ledger import Ledger
from application.store_config import eventsourcing_env
from domain.account import Account
from tests.ha.pair import Pair
from tests.served import serving

pytestmark = pytest.mark.ha

SLUICE = str(Path(sys.executable).parent / "sluice")
ALICE = {"Authorization": "Bearer sk-demo-alice"}
DEADLINE = 60.0


def pay(client: httpx.Client, memo: str) -> int:
    """Alice pays bob 1.00; retried on 503 (a failover under way) until it answers."""
    deadline = time.monotonic() + DEADLINE
    body = {"payer": "alice", "payee": "bob", "amount": 1, "memo": memo}
    while True:
        answer = client.post("/v1/use-cases/transfer", json=body, headers=ALICE)
        if answer.status_code != 503:
            assert answer.status_code == 200, answer.text
            return int(answer.json()["position"])
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.1)


def test_a_transfer_lost_by_asynchronous_replication_is_not_written_upon(
    async_pair: Pair,
) -> None:
    pair = async_pair
    env = {**os.environ, "SLUICE_DATABASE_URL": pair.url}
    with (
        serving([SLUICE, "serve", "--demo"], env) as base,
        httpx.Client(base_url=base, timeout=30) as client,
    ):
        # On both servers.
        kept = pay(client, "kept")
        deadline = time.monotonic() + DEADLINE
        while (
            pair.standby.query(
                "SELECT count(*) FROM ledger_events WHERE notification_id = %s", kept
            )
            != 1
        ):
            assert time.monotonic() < deadline, "the standby never replayed the transfer"
            time.sleep(0.05)
        # Answered 200 by the primary alone: the standby is away.
        pair.stop_standby()
        pay(client, "lost")
        pair.kill_primary()
        pair.start_standby()
        pair.promote()
        # The gateway had cached alice after "lost"; the new primary never saw it.
        pay(client, "after")

    with Ledger(env=eventsourcing_env(pair.standby.url)) as ledger:
        memos = [
            event.memo
            for event in ledger.events_of(Account.id_for("alice"))
            if isinstance(event, Account.TransferDebited)
        ]
        versions = [event.originator_version for event in ledger.events_of(Account.id_for("alice"))]
        balances = {
            name: ledger.load_keyed(Account, name).balance for name in ("alice", "bob", "carla")
        }
    # What asynchronous replication risks: the transfer answered before the failure is gone.
    assert memos == ["kept", "after"]
    # What Sluice keeps: the account's history has no hole, and the books balance.
    assert versions == list(range(1, len(versions) + 1))
    assert balances["alice"] == 98
    assert sum(balances.values()) == 100
