"""Long histories: accounts are snapshotted, statements and listings read no whole history."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from eventsourcing.application import AggregateNotFoundError
from hypothesis import given, settings
from hypothesis import strategies as st

from application.bank.accounts import OpenAccount
from application.bank.movements import Deposit, Transfer, Withdraw
from application.bank.queries import ListAccounts, Statement
from application.bank.statement import entries
from application.executor import execute
from application.ledger import SNAPSHOT_EVERY, Ledger
from application.store_config import eventsourcing_env
from application.unit_of_work import UnitOfWork
from application.use_case import UseCase
from domain.account import Account, account_id
from domain.idempotency import IdempotentRequest, request_id
from domain.registry import REGISTRY_ID, AccountRegistry
from tests.direct import call_now, seed_demo
from tests.stores import empty_store

NAMES = ["alice", "bob", "carla"]
AMOUNTS = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("80"), places=2)
OPERATIONS = st.lists(
    st.one_of(
        st.builds(Deposit, account=st.sampled_from(NAMES), amount=AMOUNTS),
        st.builds(Withdraw, account=st.sampled_from(NAMES), amount=AMOUNTS),
        st.builds(
            Transfer, payer=st.sampled_from(NAMES), payee=st.sampled_from(NAMES), amount=AMOUNTS
        ),
    ),
    max_size=30,
)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def stored_ledger(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Ledger]:
    """The demo on a store a second process can open."""
    with empty_store(request.param, tmp_path) as url, Ledger(env=eventsourcing_env(url)) as opened:
        seed_demo(opened)
        yield opened


def test_an_account_past_the_snapshot_interval_loads_in_a_fresh_process_from_its_snapshot(
    stored_ledger: Ledger,
) -> None:
    demo_ledger = stored_ledger
    start = demo_ledger.load_keyed(Account, "bob")
    for _ in range(SNAPSHOT_EVERY * 2 + 5):
        assert call_now(demo_ledger, Deposit(account="bob", amount=Decimal(1))).ok
    version = start.version + SNAPSHOT_EVERY * 2 + 5
    assert demo_ledger.snapshots is not None
    snapshots = list(demo_ledger.snapshots.get(account_id("bob"), desc=True, limit=1))

    fresh = Ledger(env=demo_ledger.env)
    try:
        loaded = fresh.load_keyed(Account, "bob")
    finally:
        fresh.close()

    assert [s.originator_version for s in snapshots] == [version // SNAPSHOT_EVERY * SNAPSHOT_EVERY]
    assert loaded.version == demo_ledger.load_keyed(Account, "bob").version == version
    assert loaded.balance == start.balance + SNAPSHOT_EVERY * 2 + 5


def test_a_snapshot_the_store_cannot_write_leaves_the_save_standing(tmp_path: Path) -> None:
    with empty_store("sqlite", tmp_path) as url, Ledger(env=eventsourcing_env(url)) as ledger:
        seed_demo(ledger)
        while ledger.load_keyed(Account, "bob").version < SNAPSHOT_EVERY - 1:
            assert call_now(ledger, Deposit(account="bob", amount=Decimal(1))).ok
        balance = ledger.load_keyed(Account, "bob").balance
        with sqlite3.connect(url.removeprefix("sqlite://")) as db:
            db.execute("DROP TABLE stored_snapshots")

        crossing = call_now(ledger, Deposit(account="bob", amount=Decimal(1)))  # version 100

        assert crossing.ok, crossing.error
        assert ledger.load_keyed(Account, "bob").version == SNAPSHOT_EVERY
        assert ledger.load_keyed(Account, "bob").balance == balance + 1


def test_the_registry_of_accounts_is_snapshotted_and_lists_every_account_in_order(
    stored_ledger: Ledger,
) -> None:
    demo_ledger = stored_ledger
    for n in range(SNAPSHOT_EVERY + 3):
        assert call_now(demo_ledger, OpenAccount(account=f"x{n:03d}", owner="X")).ok
    assert demo_ledger.snapshots is not None
    snapshots = list(demo_ledger.snapshots.get(REGISTRY_ID, desc=True, limit=1))
    fresh = Ledger(env=demo_ledger.env)
    try:
        listed = execute(ListAccounts(), UnitOfWork(fresh)).value
        registry = fresh.listing(AccountRegistry)
    finally:
        fresh.close()

    assert [s.originator_version for s in snapshots] == [SNAPSHOT_EVERY]
    assert registry is not None and registry.names == demo_ledger.keys_in_log(Account)
    assert [view.account for view in listed] == sorted(demo_ledger.keys_in_log(Account))


@settings(max_examples=40, deadline=None)
@given(operations=OPERATIONS, limit=st.integers(min_value=1, max_value=100))
def test_a_statement_from_the_latest_events_equals_the_one_folded_from_the_whole_history(
    operations: list[UseCase[object]], limit: int
) -> None:
    ledger = Ledger(env={"PERSISTENCE_MODULE": "infrastructure.popo"})
    seed_demo(ledger)
    for operation in operations[: len(operations) // 2]:
        call_now(ledger, operation)
    uow = UnitOfWork(ledger)
    # The rest happen inside the unit of work, so the statement sees its own writes too.
    for operation in operations[len(operations) // 2 :]:
        try:
            execute(operation, uow)
        except Exception:  # a refusal: the unit of work keeps what was done before it
            continue
    for name in NAMES:
        shown = execute(Statement(account=name, limit=limit), uow).value
        folded = entries(name, uow.history(Account, name))[::-1][:limit]
        assert shown == folded


def test_a_record_never_snapshotted_is_read_from_its_events_without_asking_for_a_snapshot(
    stored_ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Runs, kept answers and conversations are never snapshotted: their load skips the
    # snapshot store's read (one round trip of two), and gives what a full load gives.
    kept = IdempotentRequest(
        principal="alice", key="k-1", request_hash="h", status=200, body={"changed": "nothing"}
    )
    stored_ledger.save(kept)
    assert stored_ledger.snapshots is not None
    asked: list[object] = []
    snapshots_get = stored_ledger.snapshots.get

    def get(*args: Any, **kwargs: Any) -> Any:
        asked.append(args)
        return snapshots_get(*args, **kwargs)

    monkeypatch.setattr(stored_ledger.snapshots, "get", get)

    loaded = stored_ledger.load_record(request_id("alice", "k-1"))

    assert asked == []
    assert isinstance(loaded, IdempotentRequest)
    assert (loaded.id, loaded.version, loaded.body) == (kept.id, kept.version, kept.body)
    assert stored_ledger.repository.get(kept.id).body == kept.body
    assert asked != []  # a full load asks, so the spy would have seen the other path
    with pytest.raises(AggregateNotFoundError):
        stored_ledger.load_record(request_id("alice", "no such key"))
