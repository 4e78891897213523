"""Reads from a hot standby (SLUICE_READ_DATABASE_URL): the read endpoints read it, a read
given a `min_position` (or `consistent=true`) sees that far, waiting for the standby's
replay within the bounded wait, else reading the primary, and a standby that is gone leaves
reads to the primary. The standby's lag is in /health and /metrics.

The standby's replay is paused to tell the two apart: a read it answers does not see a
write the primary has."""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.ha.pair import Pair
from tests.served import serving

pytestmark = pytest.mark.ha

SLUICE = str(Path(sys.executable).parent / "sluice")
ALICE = {"Authorization": "Bearer sk-demo-alice"}
BOB = {"Authorization": "Bearer sk-demo-bob"}
AUDITOR = {"Authorization": "Bearer sk-demo-auditor"}
# How long a read waits for its position (SLUICE_READ_WAIT_SECONDS): long beside the 0.3 s
# the test lets pass before it resumes the standby's replay.
WAIT_SECONDS = 3


@pytest.fixture
def gateway(pair: Pair) -> Iterator[str]:
    env = {
        **os.environ,
        "SLUICE_DATABASE_URL": pair.url,
        "SLUICE_READ_DATABASE_URL": pair.standby.url,
        "SLUICE_READ_WAIT_SECONDS": str(WAIT_SECONDS),
    }
    with serving([SLUICE, "serve", "--demo"], env) as base:
        yield base


def reads(base: str) -> dict[str, float]:
    """This process's reads of the read models so far, by the server that answered them."""
    text = httpx.get(f"{base}/metrics", headers=AUDITOR, timeout=30).text
    found = re.findall(r'^sluice_read_model_reads_total\{server="(\w+)"\} (\S+)$', text, re.M)
    return {server: float(count) for server, count in found}


def metric(base: str, name: str) -> float:
    text = httpx.get(f"{base}/metrics", headers=AUDITOR, timeout=30).text
    found = re.search(rf"^{name} (\S+)$", text, re.M)
    assert found, f"no {name} in /metrics"
    return float(found.group(1))


def balance(base: str, account: str, headers: dict[str, str], **params: Any) -> str:
    answer = httpx.get(f"{base}/v1/accounts/{account}", params=params, headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    return str(answer.json()["balance"])


def projected(base: str, position: int) -> None:
    """Until the primary's read models hold `position` (the projector runs in the server)."""
    deadline = time.monotonic() + 30
    while True:
        health = httpx.get(f"{base}/health", headers=AUDITOR, timeout=30).json()
        if health["log_position"] >= position and health["projection_lag"] == 0:
            return
        assert time.monotonic() < deadline, health
        time.sleep(0.05)


def test_reads_land_on_the_standby_and_a_position_is_seen(pair: Pair, gateway: str) -> None:
    base = gateway
    assert balance(base, "alice", ALICE, consistent="true") == "100.00"
    pair.pause_replay()
    paid = httpx.post(
        f"{base}/v1/use-cases/transfer",
        json={"payer": "alice", "payee": "bob", "amount": 1},
        headers=ALICE,
        timeout=30,
    ).json()
    position = paid["position"]
    projected(base, position)
    before = reads(base)

    # A plain read is the standby's: it has not replayed the transfer.
    assert balance(base, "alice", ALICE) == "100.00"
    assert reads(base)["standby"] > before["standby"]
    # Its lag is told.
    health = httpx.get(f"{base}/health", headers=AUDITOR, timeout=30)
    assert health.status_code == 200, health.text
    assert health.json()["standby_lag_events"] >= 1
    assert {"name": "standby", "status": "ok"} in httpx.get(f"{base}/health").json()["checks"]
    assert metric(base, "sluice_standby_lag_events") >= 1
    assert metric(base, "sluice_standby_up") == 1

    # A read that must see the transfer waits for the standby, then reads the primary.
    before = reads(base)
    assert balance(base, "alice", ALICE, min_position=position) == "99.00"
    assert balance(base, "alice", ALICE, consistent="true") == "99.00"
    statement = httpx.get(
        f"{base}/v1/accounts/alice/statement",
        params={"min_position": position},
        headers=ALICE,
        timeout=30,
    ).json()
    assert statement["items"][0]["amount"] == "-1.00"
    after = reads(base)
    assert after["primary"] > before["primary"]

    # And reads the standby when it replays that far within the wait.
    answered: list[str] = []
    waiting = threading.Thread(
        target=lambda: answered.append(balance(base, "bob", BOB, min_position=position))
    )
    waiting.start()
    time.sleep(0.3)
    pair.resume_replay()
    waiting.join(timeout=60)
    assert answered == ["1.00"]
    last = reads(base)
    assert last["primary"] == after["primary"], "read from the primary, not the standby"
    assert last["standby"] > after["standby"]
    health = httpx.get(f"{base}/health", headers=AUDITOR, timeout=30).json()
    assert health["standby_lag_events"] == 0


def test_without_its_standby_the_read_side_reads_the_primary(pair: Pair, gateway: str) -> None:
    base = gateway
    assert balance(base, "alice", ALICE) == "100.00"
    pair.stop_standby()

    # Reads go on (from the primary); /health says what is missing.
    assert balance(base, "alice", ALICE) == "100.00"
    assert balance(base, "bob", BOB, consistent="true") == "0.00"
    health = httpx.get(f"{base}/health", timeout=30)
    assert health.status_code == 503
    assert {"name": "standby", "status": "degraded"} in health.json()["checks"]
    assert {"name": "store", "status": "ok"} in health.json()["checks"]
    assert metric(base, "sluice_standby_up") == 0
