"""A poison event never halts the read side: it is set aside as a dead letter, counted by
`audit verify`, and projection goes on; a rebuild retries it, and a swap repairs the live
model in place."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

import pytest
from eventsourcing.persistence import Notification
from fastapi.testclient import TestClient

from application.bank import records
from application.bank.read_models import BANK_READ_MODELS
from application.read_models.replay import Replay
from application.read_models.service import ReadModels
from application.read_models.store import Window
from domain.account import Account, account_id
from gateway.bootstrap import Sluice
from gateway.interfaces.http.app import create_app


def balances(models: ReadModels) -> dict[str, Decimal]:
    return {row.account: row.balance for row in records.balances(models.store)}


def deposit(sluice: Sluice, account: str, amount: str) -> None:
    teller = sluice.gateway.authenticate("sk-demo-teller")
    sluice.gateway.call(teller, "deposit", {"account": account, "amount": amount})


def raw_deposit(sluice: Sluice, account: str, amount: str, memo: str = "") -> int:
    """An event written past every check of the use cases, as a bug upstream would write it;
    its position in the log."""
    loaded = sluice.ledger.load_keyed(Account, account)
    # The event itself, past the domain's checks (of the maximum balance, for one).
    loaded.trigger_event(Account.Deposited, amount=Decimal(amount), memo=memo)
    [recording] = sluice.ledger.save(loaded)
    return recording.notification.id


def fail_on(models: ReadModels, account: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the balances projection: it cannot fold any event of `account`."""
    projection = models.projections["balances"]
    poisoned = account_id(account)

    def process_stored(notifications: Sequence[Notification], window: Window) -> bool:
        if any(n.originator_id == poisoned for n in notifications):
            raise ValueError(f"a bug: cannot fold {account}\x00")
        return type(projection).process_stored(projection, notifications, window)

    def process_batch(events: Sequence[Any], window: Window) -> None:
        if any(event.originator_id == poisoned for event, _ in events):
            raise ValueError(f"a bug: cannot fold {account}\x00")
        type(projection).process_batch(projection, events, window)

    monkeypatch.setattr(projection, "process_stored", process_stored)
    monkeypatch.setattr(projection, "process_batch", process_batch)


def test_an_event_the_projection_cannot_fold_is_set_aside_and_the_rest_goes_on(
    sluice: Sluice, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = sluice.read_models
    models.catch_up()
    before = balances(models)
    fail_on(models, "carla", monkeypatch)
    poison = raw_deposit(sluice, "carla", "5.00")
    deposit(sluice, "bob", "2.00")

    models.catch_up()  # no error: the read side goes on

    [letter] = models.dead_letters()
    assert (letter.projection, letter.position) == ("balances", poison)
    assert "ValueError: a bug: cannot fold carla\\x00" in letter.error  # kept printable
    assert models.position("balances") == models.head()
    assert balances(models)["bob"] == before["bob"] + 2
    assert balances(models)["carla"] == before["carla"]  # the poison is not applied
    _, checks = sluice.operations.verify(models)
    failed = {check.name: check.details for check in checks if not check.ok}
    assert failed["no event set aside by a projection"] == [
        f"balances could not apply the event at position {poison}: {letter.error}"
    ]


def test_health_is_degraded_while_an_event_is_set_aside(
    sluice: Sluice, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = sluice.read_models
    models.catch_up()
    auditor = {"Authorization": "Bearer sk-demo-auditor"}  # the details are operators'
    with TestClient(create_app(sluice), raise_server_exceptions=False, headers=auditor) as client:
        healthy = client.get("/health")
        fail_on(models, "carla", monkeypatch)
        poison = raw_deposit(sluice, "carla", "5.00")
        models.catch_up()
        degraded = client.get("/health")

    assert healthy.status_code == 200
    assert (healthy.json()["dead_letters"], healthy.json()["projection_lag"]) == (0, 0)
    assert degraded.status_code == 503
    body = degraded.json()
    assert (body["status"], body["dead_letters"]) == ("degraded", 1)
    [check] = [c for c in body["checks"] if c["name"] == "read_models"]
    assert check["status"] == "degraded"
    assert f"the first at position {poison} (balances)" in check["detail"]


def test_a_rebuild_retries_dead_letters_and_a_swap_repairs_the_live_model(
    sluice: Sluice, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = sluice.read_models
    models.catch_up()
    fail_on(models, "carla", monkeypatch)
    raw_deposit(sluice, "carla", "5.00")
    models.catch_up()
    assert len(models.dead_letters()) == 1
    monkeypatch.undo()  # the bug is fixed; the live model still lacks the event

    compared = Replay(sluice.ledger, BANK_READ_MODELS).run(["balances"])
    assert compared[0].equal is False
    assert compared[0].rebuilt_dead_letters == []
    assert len(compared[0].live_dead_letters) == 1
    assert models.dead_letters() != []  # comparing changes nothing live

    [swapped] = Replay(sluice.ledger, BANK_READ_MODELS).run(["balances"], swap=True)

    assert swapped.swapped and swapped.equal and swapped.sound
    assert models.dead_letters() == []
    assert balances(models)["carla"] == Decimal("3.50") + 5
    _, checks = sluice.operations.verify(models)
    assert all(check.ok for check in checks), [c for c in checks if not c.ok]


def test_a_swap_is_exactly_once_with_a_projector_running(sluice: Sluice) -> None:
    # Writes and a live projector go on while the live model is replaced by a rebuild.
    models = sluice.read_models
    sluice.projector.start()
    try:
        for _ in range(20):
            deposit(sluice, "bob", "1.00")
        Replay(sluice.ledger, BANK_READ_MODELS).run(swap=True)
        for _ in range(20):
            deposit(sluice, "bob", "1.00")
    finally:
        sluice.projector.stop()
    models.catch_up()

    assert balances(models)["bob"] == Decimal("23.00") + 40
    assert all(r.equal for r in Replay(sluice.ledger, BANK_READ_MODELS).run(from_scratch=True))


@pytest.mark.parametrize(
    ("amount", "memo", "projection"),
    [
        ("10000000000000000000.00", "", "balances"),  # beyond what the read models hold
        ("1.00", "a\x00b", "statement"),  # kept: no store refuses it
    ],
)
def test_a_value_the_store_refuses_is_a_dead_letter(
    durable_sluice: Sluice, amount: str, memo: str, projection: str
) -> None:
    sluice = durable_sluice
    models = sluice.read_models
    models.catch_up()
    poison = raw_deposit(sluice, "carla", amount, memo)
    deposit(sluice, "bob", "2.00")

    models.catch_up()

    letters = [(x.projection, x.position) for x in models.dead_letters()]
    if projection == "statement":
        assert letters == []  # a record's JSON text escapes a NUL: every store keeps it
    else:
        assert (projection, poison) in letters
    assert models.position(projection) == models.head()
    assert balances(models)["bob"] == Decimal("25.00")
    [row] = records.statement(models.store, "bob", 1)
    assert row.amount == Decimal("2.00")
