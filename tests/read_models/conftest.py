"""A demo Sluice on each store, with some history to project."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from application.ledger import Ledger
from application.read_models.service import LIVE, open_read_model_store
from application.read_models.store import ReadModelStore
from gateway.bootstrap import Sluice
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from tests.conftest import STORES, TEST_CAPS
from tests.stores import empty_store


def some_history(sluice: Sluice) -> None:
    """Transfers, a deposit, a withdrawal, a closed account and a refused program."""
    gateway = sluice.gateway
    teller = gateway.authenticate("sk-demo-teller")
    alice = gateway.authenticate("sk-demo-alice")
    gateway.call(teller, "open_account", {"account": "dan", "owner": "Dan", "initial_deposit": 30})
    for amount in (5, 7, 11):
        gateway.call(alice, "transfer", {"payer": "alice", "payee": "bob", "amount": amount})
    gateway.call(teller, "deposit", {"account": "carla", "amount": "2.50", "memo": "cash"})
    gateway.call(teller, "withdraw", {"account": "dan", "amount": 30})
    gateway.call(teller, "close_account", {"account": "dan"})
    proposal = gateway.propose(
        alice, "python", 'transfer(payer="alice", payee="carla", amount=1, memo="via program")'
    )
    gateway.confirm(alice, proposal.id, proposal.preview_hash)


def _sluice(kind: str, folder: Path, sandbox: Sandbox) -> Iterator[Sluice]:
    caps = replace(TEST_CAPS, programs_per_minute=10_000)
    with empty_store(kind, folder) as url, Sluice(url, caps, sandbox=sandbox) as built:
        seed(built.gateway)
        some_history(built)
        yield built


@pytest.fixture(params=STORES)
def sluice(request: pytest.FixtureRequest, tmp_path: Path, sandbox: Sandbox) -> Iterator[Sluice]:
    yield from _sluice(request.param, tmp_path, sandbox)


@pytest.fixture(params=STORES[1:])
def durable_sluice(
    request: pytest.FixtureRequest, tmp_path: Path, sandbox: Sandbox
) -> Iterator[Sluice]:
    """On the stores that outlive a process: SQLite and Postgres."""
    yield from _sluice(request.param, tmp_path, sandbox)


@pytest.fixture
def live(ledger: Ledger) -> ReadModelStore:
    """The live read-model store of an empty ledger (the `ledger` fixture: each store)."""
    return open_read_model_store(ledger, LIVE)
