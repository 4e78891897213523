"""The read models: live equals a replay of the log, every event is applied exactly once."""

from __future__ import annotations

from decimal import Decimal

import pytest

from application.bank import records
from application.bank.read_models import BANK_READ_MODELS
from application.read_models.replay import Replay
from application.read_models.service import LIVE, ReadModels, open_read_model_store
from application.read_models.store import StaleWindowError, Window
from gateway.bootstrap import Sluice
from tests.read_models.names import BANK_PROJECTIONS


def test_the_live_models_show_the_history(sluice: Sluice) -> None:
    sluice.read_models.catch_up()
    view = sluice.read_models.store

    balances = {row.account: (row.balance, row.status) for row in records.balances(view)}
    bob = records.statement(view, "bob", 10)
    runs = view.runs()

    assert balances == {
        "alice": (Decimal("76.00"), "open"),
        "bob": (Decimal("23.00"), "open"),
        "carla": (Decimal("3.50"), "open"),
        "dan": (Decimal("0.00"), "closed"),
    }
    assert [(e.kind, e.amount, e.balance, e.counterparty) for e in bob] == [
        ("transfer_in", Decimal("11.00"), Decimal("23.00"), "alice"),
        ("transfer_in", Decimal("7.00"), Decimal("12.00"), "alice"),
        ("transfer_in", Decimal("5.00"), Decimal("5.00"), "alice"),
        ("opened", Decimal("0.00"), Decimal("0.00"), None),
    ]
    assert all(entry.run_id for entry in bob)  # each movement links to its run
    assert [(r.principal, r.kind, r.status, r.committed) for r in runs][-1] == (
        "alice",
        "program",
        "committed",
        2,
    )


def test_a_replay_from_scratch_equals_the_live_models(sluice: Sluice) -> None:
    sluice.read_models.catch_up()

    results = Replay(sluice.ledger, BANK_READ_MODELS).run(from_scratch=True)

    assert [(r.projection, r.equal) for r in results] == [
        ("balances", True),
        ("statement", True),
        ("runs", True),
    ]
    assert all(r.rows > 0 for r in results)


def test_a_replay_resumes_where_it_stopped_and_stops_where_asked(sluice: Sluice) -> None:
    replay = Replay(sluice.ledger, BANK_READ_MODELS)
    halfway = sluice.read_models.head() // 2

    partial = replay.run(["balances"], to=halfway, from_scratch=True)
    resumed = replay.run(["balances"])

    assert partial[0].position == halfway
    assert replay.rebuilt.position("balances") == resumed[0].position == sluice.read_models.head()
    assert resumed[0].equal is True


def test_a_window_applied_twice_is_refused_and_changes_nothing(sluice: Sluice) -> None:
    models = sluice.read_models
    models.catch_up()
    before = records.balances(models.store)
    position = models.position("balances")
    name = models.tracking_name("balances")

    with pytest.raises(StaleWindowError):
        models.projections["balances"].process_batch([], Window(name, position - 1, position))

    assert records.balances(models.store) == before
    assert models.position("balances") == position


def test_a_window_overlapping_one_already_applied_is_refused(sluice: Sluice) -> None:
    # One applier caught up to the head; another, which read the position before that,
    # comes with a window that starts earlier and ends later.
    models = sluice.read_models
    head = models.head()
    teller = sluice.gateway.authenticate("sk-demo-teller")
    sluice.gateway.call(teller, "deposit", {"account": "carla", "amount": 1})
    models.catch_up(to=head)
    before = {row.account: row.balance for row in records.balances(models.store)}
    late = ReadModels(
        sluice.ledger, declared=BANK_READ_MODELS, view=open_read_model_store(sluice.ledger, LIVE)
    )
    notifications = sluice.ledger.recorder.select_notifications(
        head - 5, 100, topics=late.projections["balances"].topics
    )
    overlapping = Window(models.tracking_name("balances"), head - 6, models.head())

    with pytest.raises(StaleWindowError) as stale:
        late.projections["balances"].process_stored(notifications, overlapping)

    assert f"recorded position {head}" in str(stale.value)
    assert {row.account: row.balance for row in records.balances(models.store)} == before
    models.catch_up()
    assert {row.account: row.balance for row in records.balances(models.store)}["carla"] == (
        before["carla"] + 1
    )


def test_two_catching_up_at_once_apply_each_event_once(sluice: Sluice) -> None:
    import threading

    other = ReadModels(
        sluice.ledger,
        declared=BANK_READ_MODELS,
        view=open_read_model_store(sluice.ledger, LIVE),
        window=3,
    )
    mine = ReadModels(
        sluice.ledger,
        declared=BANK_READ_MODELS,
        view=open_read_model_store(sluice.ledger, LIVE),
        window=3,
    )
    threads = [threading.Thread(target=models.catch_up) for models in (mine, other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert Replay(sluice.ledger, BANK_READ_MODELS).run(from_scratch=True)[0].equal is True
    assert sum(row.balance for row in records.balances(mine.store)) == Decimal("102.50")


def test_catching_up_together_at_once_applies_each_event_once(sluice: Sluice) -> None:
    # Once the three stand at one position they go on together, a window of the three per
    # transaction: three appliers race over it (two of them one ReadModels in two threads,
    # whose gathered writes must not mix).
    import threading

    shared = ReadModels(
        sluice.ledger,
        declared=BANK_READ_MODELS,
        view=open_read_model_store(sluice.ledger, LIVE),
        window=3,
    )
    shared.catch_up(to=4)
    names = [shared.tracking_name(name) for name in BANK_PROJECTIONS]
    assert set(shared.store.positions(names).values()) == {4}
    other = ReadModels(
        sluice.ledger,
        declared=BANK_READ_MODELS,
        view=open_read_model_store(sluice.ledger, LIVE),
        window=3,
    )
    threads = [threading.Thread(target=m.catch_up) for m in (shared, shared, other)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert set(shared.store.positions(names).values()) == {shared.head()}
    assert [r.equal for r in Replay(sluice.ledger, BANK_READ_MODELS).run(from_scratch=True)] == [
        True
    ] * 3
    assert sum(row.balance for row in records.balances(shared.store)) == Decimal("102.50")


def test_a_read_model_behind_the_others_catches_up_alone_then_with_them(sluice: Sluice) -> None:
    models = sluice.read_models
    models.catch_up()
    models.reset(["runs"])  # rebuilt from the start, while the others stand at the head
    teller = sluice.gateway.authenticate("sk-demo-teller")
    sluice.gateway.call(teller, "deposit", {"account": "carla", "amount": 1})

    caught_up = models.catch_up()

    names = [models.tracking_name(name) for name in BANK_PROJECTIONS]
    assert set(models.store.positions(names).values()) == {models.head()}
    assert {c.projection: c.events for c in caught_up}["balances"] == 1
    sluice.gateway.call(teller, "deposit", {"account": "carla", "amount": 2})
    # Together now: the deposit, and its run (proposed, confirmed, committed).
    assert [(c.projection, c.events) for c in models.catch_up()] == [
        ("balances", 1),
        ("statement", 2),
        ("runs", 3),
    ]
    assert [r.equal for r in Replay(sluice.ledger, BANK_READ_MODELS).run(from_scratch=True)] == [
        True
    ] * 3


def test_folding_stored_bytes_gives_what_decoding_whole_events_gives(sluice: Sluice) -> None:
    fast = ReadModels(
        sluice.ledger,
        declared=BANK_READ_MODELS,
        view=open_read_model_store(sluice.ledger, "fast_"),
        window=4,
        fast=True,
    )
    whole = ReadModels(
        sluice.ledger,
        declared=BANK_READ_MODELS,
        view=open_read_model_store(sluice.ledger, "whole_"),
        window=4,
        fast=False,
    )

    fast.catch_up(["balances"])
    whole.catch_up(["balances"])

    assert records.balances(fast.store) == records.balances(whole.store)
    assert len(records.balances(fast.store)) == 4


def test_a_store_kept_in_the_former_shape_rebuilds_the_banks_read_models(sluice: Sluice) -> None:
    # A store from before records and histories: the balances and statement tracked at the
    # log's head under their former names, and none of their rows in the new tables.
    models = sluice.read_models
    models.catch_up()
    before = records.balances(models.store), records.statement(models.store, "bob", 10)
    models.reset(["balances", "statement"])
    for name in ("balances", "statement"):
        former = f"{sluice.ledger.name}:{models.store.prefix}{name}"
        models.store.apply_documents([], Window(former, 0, models.head()))
        assert models.tracking_name(name) == f"{former}@2"
        assert models.position(name) == 0  # so the catch-up rebuilds it from the start

    models.catch_up()

    assert (records.balances(models.store), records.statement(models.store, "bob", 10)) == before
