"""Memory under steady load (issue 13): what a request leaves behind in the process is bounded.

A gateway serves for weeks: each proposal, confirmation or Idempotency-Key replay must not
leave its run or answer in memory, while the accounts that every request reads stay hot,
so a long-lived account is not replayed from its first event on every request.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from application import principals
from application.ledger import Ledger
from application.results import Outcome
from application.store_config import eventsourcing_env
from domain.account import account_id
from domain.idempotency import IdempotentRequest
from domain.run import Run
from gateway.core.catalog import Catalog
from gateway.core.facade import Gateway
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from gateway.interfaces.http.idempotency import idempotent, request_hash
from tests.conftest import TEST_CAPS, Clock
from tests.gateway.conftest import make_gateway
from tests.stores import empty_store

TRANSFER = 'transfer(payer="alice", payee="bob", amount=0.01)'


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Ledger]:
    """The stores a served gateway runs on (the in-memory store holds the log itself)."""
    with empty_store(request.param, tmp_path) as url, Ledger(env=eventsourcing_env(url)) as opened:
        yield opened


@pytest.fixture
def gateway(ledger: Ledger, catalog: Catalog, sandbox: Sandbox, clock: Clock) -> Gateway:
    # A steady load, not a burst a principal's cap should stop.
    caps = replace(TEST_CAPS, programs_per_minute=100_000, requests_per_minute=100_000)
    built = make_gateway(ledger, catalog, sandbox, clock, caps)
    seed(built)
    return built


def alive(kind: type) -> int:
    gc.collect()
    return sum(1 for thing in gc.get_objects() if type(thing) is kind)


def propose_and_confirm(gateway: Gateway, times: int) -> None:
    teller = gateway.authenticate("sk-demo-teller")
    for _ in range(times):
        proposal = gateway.propose(teller, "python", TRANSFER)
        outcome = gateway.confirm(teller, proposal.id, proposal.preview_hash)
        assert outcome.status == "committed", outcome


def test_confirmed_proposals_are_not_kept_in_memory(gateway: Gateway) -> None:
    propose_and_confirm(gateway, 150)
    assert alive(Run) <= 2
    # The accounts the programs moved money between are still kept (fast-forwarded on use).
    cache = gateway.ledger.repository.cache
    assert cache is not None
    assert {account_id("alice"), account_id("bob")} <= set(cache.cache)


def test_memory_held_does_not_grow_with_the_number_of_confirmations(gateway: Gateway) -> None:
    propose_and_confirm(gateway, 50)  # warm up: pools, caches of the store and of Python
    gc.collect()
    tracemalloc.start()
    try:
        held_before = tracemalloc.get_traced_memory()[0]
        propose_and_confirm(gateway, 150)
        gc.collect()
        growth = tracemalloc.get_traced_memory()[0] - held_before
    finally:
        tracemalloc.stop()
    # A kept run is about 9 KB; here 150 more confirmations may leave well under 1 KB each.
    assert growth < 150 * 1024, f"{growth / 1024:.0f} KB held after 150 more confirmations"


def test_replayed_idempotency_answers_are_not_kept_in_memory(gateway: Gateway) -> None:
    teller = principals.find(gateway.ledger, "teller")
    assert teller is not None
    arguments = {"payer": "alice", "payee": "bob", "amount": "0.01"}
    fingerprint = request_hash("/v1/use-cases/transfer", arguments)

    def transfer(record: Any) -> Outcome:
        return gateway.call(teller, "transfer", arguments, record=record)

    for number in range(100):
        first = idempotent(gateway, teller, f"key-{number}", fingerprint, transfer)
        replay = idempotent(gateway, teller, f"key-{number}", fingerprint, transfer)
        assert replay.status_code == 200
        assert first.run_id is not None
    assert alive(IdempotentRequest) <= 2
