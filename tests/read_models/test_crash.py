"""Exactly once after a crash in the middle of a projection batch: kill, restart, compare."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from decimal import Decimal

from application.bank import records
from application.bank.read_models import BANK_READ_MODELS
from application.read_models.replay import Replay
from application.read_models.service import LIVE, ReadModels, open_read_model_store
from gateway.bootstrap import Sluice
from tests.postgres import support
from tests.read_models.crash_child import MARK
from tests.read_models.names import BANK_PROJECTIONS


def test_a_batch_killed_half_written_is_applied_once_after_a_restart(
    durable_sluice: Sluice,
) -> None:
    sluice = durable_sluice
    teller = sluice.gateway.authenticate("sk-demo-teller")
    for amount in range(1, 41):
        sluice.gateway.call(teller, "deposit", {"account": "carla", "amount": amount})
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.read_models.crash_child", sluice.database_url],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "IN-TRANSACTION"

    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    if sluice.database_url.startswith("postgres"):
        wait_until_the_killed_statement_ends()
    restarted = ReadModels(
        sluice.ledger,
        declared=BANK_READ_MODELS,
        view=open_read_model_store(sluice.ledger, LIVE),
        window=10,
    )

    assert restarted.position("balances") == 20  # two whole windows of ten, not the third
    restarted.catch_up(["balances"])
    [compared] = Replay(sluice.ledger, BANK_READ_MODELS).run(["balances"], from_scratch=True)
    assert compared.equal is True
    carla = {row.account: row.balance for row in records.balances(restarted.store)}["carla"]
    assert carla == Decimal("3.50") + sum(range(1, 41))  # its history, then each deposit once


def test_a_window_the_read_models_write_together_killed_half_written_moves_none_of_them(
    durable_sluice: Sluice,
) -> None:
    """The three read models catch up in one transaction per window: killed after every
    row of the window was written, none of them has moved, so they never disagree about
    how far the log has been applied (a balance its statement does not explain yet)."""
    sluice = durable_sluice
    models = sluice.read_models
    models.catch_up()
    names = [models.tracking_name(name) for name in BANK_PROJECTIONS]
    before = models.store.positions(names)
    balances_before = {row.account: row.balance for row in records.balances(models.store)}
    teller = sluice.gateway.authenticate("sk-demo-teller")
    sluice.gateway.call(teller, "deposit", {"account": "carla", "amount": 4})
    program = sluice.gateway.propose(
        teller, "python", 'transfer(payer="bob", payee="carla", amount=2, memo="rent")'
    )
    sluice.gateway.confirm(teller, program.id, program.preview_hash)
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.read_models.crash_child", sluice.database_url, "together"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "IN-TRANSACTION"
    if sluice.database_url.startswith("postgres"):
        wait_for_the_statement(running=True)  # every row of the window is written by then

    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    if sluice.database_url.startswith("postgres"):
        wait_for_the_statement(running=False)
    restarted = ReadModels(
        sluice.ledger, declared=BANK_READ_MODELS, view=open_read_model_store(sluice.ledger, LIVE)
    )

    assert set(before.values()) == {before[names[0]]}  # they started together
    assert restarted.store.positions(names) == before
    assert {
        row.account: row.balance for row in records.balances(restarted.store)
    } == balances_before
    restarted.catch_up()
    assert len(set(restarted.store.positions(names).values())) == 1
    compared = Replay(sluice.ledger, BANK_READ_MODELS).run(
        list(BANK_PROJECTIONS), from_scratch=True
    )
    assert [c.equal for c in compared] == [True, True, True]
    carla = {row.account: row.balance for row in records.balances(restarted.store)}["carla"]
    assert carla == balances_before["carla"] + 6


def wait_for_the_statement(*, running: bool) -> None:
    """Until the child's waiting statement runs (or, after the kill, has ended)."""
    if not running:
        wait_until_the_killed_statement_ends()
        return
    deadline = time.monotonic() + 60
    with support.admin_connection() as conn:
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE %s "
                "AND pid <> pg_backend_pid()",
                (f"%{MARK}%",),
            ).fetchone()
            if row is not None and row[0] == 1:
                return
            time.sleep(0.05)
    raise AssertionError("the child's waiting statement did not start within 60 s")


def wait_until_the_killed_statement_ends() -> None:
    """Postgres notices a dead client only when it next talks to it: a statement the child
    was running holds its locks until the statement timeout ends it, as after a real crash.
    The restart is tested from then on."""
    deadline = time.monotonic() + 60
    with support.admin_connection() as conn:
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE query LIKE %s AND pid <> "
                "pg_backend_pid()",
                (f"%{MARK}%",),
            ).fetchone()
            if row is not None and row[0] == 0:
                return
            time.sleep(0.1)
    raise AssertionError("the killed child's statement is still running after 60 s")
