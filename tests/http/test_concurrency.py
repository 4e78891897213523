"""16 clients x 40 random transfers among 10 accounts through a served API: money is
conserved, no balance goes negative, every 2xx is in the log exactly once, and the read
side equals a replay of the log."""

from __future__ import annotations

import random
import socket
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import replace
from decimal import Decimal
from typing import Any

import httpx
import pytest
import uvicorn

from gateway.bootstrap import Sluice
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from gateway.interfaces.http.app import create_app
from tests.conftest import TEST_CAPS

CLIENTS, TRANSFERS, ACCOUNTS = 16, 40, [f"acct{i}" for i in range(10)]
TELLER = {"Authorization": "Bearer sk-demo-teller"}
AUDITOR = {"Authorization": "Bearer sk-demo-auditor"}


def serve(sluice: Sluice) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app(sluice), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def api(database_url: str, sandbox: Sandbox) -> Iterator[str]:
    caps = replace(TEST_CAPS, requests_per_minute=1_000_000)
    with Sluice(database_url, caps, sandbox=sandbox) as sluice:
        seed(sluice.gateway)
        teller = sluice.gateway.authenticate(TELLER["Authorization"].split()[1])
        for account in ACCOUNTS:
            sluice.gateway.call(
                teller, "open_account", {"account": account, "owner": "Test", "initial_deposit": 50}
            )
        yield from serve(sluice)


def transfers(base: str, seed_value: int) -> list[tuple[int, dict[str, Any]]]:
    chance = random.Random(seed_value)
    answers = []
    with httpx.Client(base_url=base, headers=TELLER, timeout=60) as client:
        for _ in range(TRANSFERS):
            payer, payee = chance.sample(ACCOUNTS, 2)
            amount = chance.choice([1, 5, 10, 20, 40])
            response = client.post(
                "/v1/use-cases/transfer", json={"payer": payer, "payee": payee, "amount": amount}
            )
            answers.append((response.status_code, response.json()))
    return answers


def test_concurrent_transfers_keep_the_books_straight(api: str) -> None:
    results: list[list[tuple[int, dict[str, Any]]]] = [[] for _ in range(CLIENTS)]
    threads = [
        threading.Thread(target=lambda i=i: results[i].extend(transfers(api, i)))
        for i in range(CLIENTS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    answers = [answer for client in results for answer in client]

    assert len(answers) == CLIENTS * TRANSFERS
    assert {status for status, _ in answers} <= {200, 409, 422}, Counter(s for s, _ in answers)
    committed = [body for status, body in answers if status == 200]
    assert committed, "no transfer went through"
    with httpx.Client(base_url=api, headers=AUDITOR, timeout=60) as client:
        log: list[dict[str, Any]] = []
        after = 0  # positions may skip numbers (Postgres sequences), so page by position
        while batch := client.get("/v1/events", params={"after": after, "limit": 1000}).json():
            log.extend(batch)
            after = batch[-1]["position"]
        accounts = client.get("/v1/accounts", params={"limit": 200}).json()["items"]
        read_side = {a["account"]: Decimal(a["balance"]) for a in accounts}

    # Every 2xx is in the log exactly once, at the positions it was given.
    by_position = {event["position"]: event for event in log}
    for body in committed:
        for event in body["events"]:
            assert by_position[event["position"]]["type"] == f"Account.{event['type']}"
    debits = [e for e in log if e["type"] == "Account.TransferDebited" and e["account"] in ACCOUNTS]
    assert len(debits) == len(committed)
    runs = Counter(body["run_id"] for body in committed)
    assert set(runs.values()) == {1}
    # The read side equals a replay of the log; money is conserved; nothing is negative.
    replayed: dict[str, Decimal] = defaultdict(Decimal)
    for event in log:
        amount = Decimal(event["data"].get("amount", "0"))
        sign = {"Deposited": 1, "TransferCredited": 1, "Withdrawn": -1, "TransferDebited": -1}
        replayed[event["account"]] += sign.get(event["type"].split(".")[-1], 0) * amount
    assert {a: read_side[a] for a in ACCOUNTS} == {a: replayed[a] for a in ACCOUNTS}
    assert sum(read_side[a] for a in ACCOUNTS) == Decimal(50 * len(ACCOUNTS))
    assert min(read_side[a] for a in ACCOUNTS) >= 0
