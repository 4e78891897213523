"""The time cap measures the program's own run (P6): never the wait for a sandbox worker, nor
the time the host spends answering its calls (the store). Those waits are bounded apart: past
the worker wait, the request is answered `unavailable` and nothing is recorded."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from eventsourcing.persistence import OperationalError
from rich.console import Console

from application import principals
from application.ledger import Ledger
from application.principals import PrincipalView
from application.store_config import eventsourcing_env
from gateway.core.catalog import Catalog
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.program.errors import ProgramError
from gateway.core.program.pool_settings import PoolSettings
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from gateway.interfaces.cli.flow import submit
from gateway.settings import SettingsError, load_settings
from tests.conftest import TEST_LIMITS, Clock
from tests.gateway.conftest import accounts_state, make_gateway
from tests.postgres import support
from tests.stores import empty_store, postgres_url

PAY_BOB = 'transfer(payer="alice", payee="bob", amount=30, memo="rent")'
HOLD_STUB = "def hold() -> None: ...\n"
SLUICE = str(Path(sys.executable).parent / "sluice")


@dataclass
class Holder:
    """A program in another thread that has a worker checked out, and what became of it."""

    started: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    error: ProgramError | None = None

    def hold(self, _name: str, _arguments: dict[str, Any], _line: int, _column: int) -> Any:
        self.started.set()
        self.release.wait(timeout=30)


@contextmanager
def holding(sandbox: Sandbox, then: str = "") -> Iterator[Holder]:
    """Check out a worker with a program that calls `hold()`, then runs `then`.

    The program waits inside `hold()` until the block releases it (or at once, if
    `then` is what keeps the worker busy)."""
    holder = Holder()
    if then:
        holder.release.set()

    def run() -> None:
        try:
            sandbox.run(f"hold()\n{then}", HOLD_STUB, {"hold"}, holder.hold)
        except ProgramError as error:
            holder.error = error

    thread = threading.Thread(target=run)
    thread.start()
    try:
        assert holder.started.wait(timeout=30), "the holding program never started"
        yield holder
    finally:
        holder.release.set()
        thread.join(timeout=60)


@pytest.fixture
def one_worker() -> Iterator[Sandbox]:
    sandbox = Sandbox(TEST_LIMITS, workers=1)
    yield sandbox
    sandbox.close()


def _gateway(ledger: Ledger, catalog: Catalog, sandbox: Sandbox, clock: Clock) -> Gateway:
    gateway = make_gateway(ledger, catalog, sandbox, clock)
    seed(gateway)
    return gateway


def _alice(gateway: Gateway) -> PrincipalView:
    found = principals.find(gateway.ledger, "alice")
    assert found is not None
    return found


@pytest.fixture
def sqlite_ledger(tmp_path: Path) -> Iterator[Ledger]:
    with empty_store("sqlite", tmp_path) as url, Ledger(env=eventsourcing_env(url)) as ledger:
        yield ledger


def test_waiting_for_a_busy_worker_does_not_count_against_the_time_cap(
    sqlite_ledger: Ledger, catalog: Catalog, one_worker: Sandbox, clock: Clock
) -> None:
    gateway = _gateway(sqlite_ledger, catalog, one_worker, clock)
    alice = _alice(gateway)

    # The only worker runs a program that spends its whole time cap: the next one waits.
    with holding(one_worker, then="while True:\n    pass") as runaway:
        proposal = gateway.propose(alice, "python", PAY_BOB)

    assert runaway.error is not None and runaway.error.message.startswith("time limit")
    assert proposal.status == "pending", proposal
    outcome = gateway.confirm(alice, proposal.id, proposal.preview_hash)
    assert outcome.status == "committed"


def test_a_worker_that_stays_busy_past_the_wait_is_unavailable_and_records_nothing(
    sqlite_ledger: Ledger, catalog: Catalog, clock: Clock
) -> None:
    sandbox = Sandbox(TEST_LIMITS, workers=1, wait_seconds=0.5)
    try:
        gateway = _gateway(sqlite_ledger, catalog, sandbox, clock)
        alice = _alice(gateway)
        head = gateway.ledger.recorder.max_notification_id()
        before = accounts_state(gateway.ledger)

        with holding(sandbox), pytest.raises(GatewayError) as refused:
            gateway.propose(alice, "python", PAY_BOB)

        assert refused.value.kind == "unavailable"
        assert str(refused.value) == (
            "the sandbox is busy: no worker came free within 0.5 s; the program did not run "
            "and nothing was written; retry in 1 s"
        )
        assert refused.value.extra["retry_after"] == 1
        assert refused.value.run_id is None
        # No run at all: the proposal was not made, so nothing is in the store for it.
        assert gateway.ledger.recorder.max_notification_id() == head
        assert accounts_state(gateway.ledger) == before

        # The CLI says the same, as a failed outcome that changed nothing.
        quiet = Console(file=io.StringIO())
        with holding(sandbox):
            shown = submit(gateway, alice, "python", PAY_BOB, console=quiet, yes=True, err=False)
        assert shown.status == "failed" and shown.changed == "nothing"
        assert (shown.error or "").startswith(
            "the sandbox is busy: no worker came free within 0.5 s"
        )

        # Once the worker is free, the same request goes through.
        assert gateway.propose(alice, "python", PAY_BOB).status == "pending"
    finally:
        sandbox.close()


def test_a_stale_confirmation_that_meets_a_busy_sandbox_is_unavailable_and_stays_pending(
    sqlite_ledger: Ledger, catalog: Catalog, clock: Clock
) -> None:
    sandbox = Sandbox(TEST_LIMITS, workers=1, wait_seconds=0.5)
    try:
        gateway = _gateway(sqlite_ledger, catalog, sandbox, clock)
        alice = _alice(gateway)
        teller = principals.find(gateway.ledger, "teller")
        assert teller is not None
        proposal = gateway.propose(alice, "python", PAY_BOB)
        gateway.call(teller, "deposit", {"account": "alice", "amount": 5})  # the preview is stale
        head = gateway.ledger.recorder.max_notification_id()

        # A stale confirmation previews the program again: with no worker, it cannot.
        with holding(sandbox), pytest.raises(GatewayError) as refused:
            gateway.confirm(alice, proposal.id, proposal.preview_hash)

        assert refused.value.kind == "unavailable"
        assert refused.value.extra["retry_after"] == 1
        assert gateway.ledger.recorder.max_notification_id() == head
        assert gateway.proposal(alice, proposal.id).status == "pending"
        # The retry meets the conflict as usual, with a fresh preview to confirm.
        with pytest.raises(GatewayError) as stale:
            gateway.confirm(alice, proposal.id, proposal.preview_hash)
        assert stale.value.kind == "conflict"
        fresh = stale.value.extra["proposal"]
        outcome = gateway.confirm(alice, fresh["id"], fresh["preview_hash"])
        assert outcome.status == "committed"
    finally:
        sandbox.close()


def test_the_time_cap_still_stops_a_runaway_program_promptly(
    sqlite_ledger: Ledger, catalog: Catalog, one_worker: Sandbox, clock: Clock
) -> None:
    gateway = _gateway(sqlite_ledger, catalog, one_worker, clock)
    alice = _alice(gateway)
    started = time.monotonic()

    with pytest.raises(GatewayError) as refused:
        gateway.propose(alice, "python", "while True:\n    pass")

    assert time.monotonic() - started < 10  # the 1 s cap, with room for a loaded machine
    assert refused.value.kind == "cap-exceeded"
    assert str(refused.value) == "time limit: the program ran longer than 1 s"
    # This one is the program's own failure: its run is recorded as failed.
    assert gateway.proposal(alice, str(refused.value.run_id)).status == "failed"


@contextmanager
def log_locked(schema: str, at_most: float) -> Iterator[None]:
    """Another connection holds the event log's table lock (as a migration or an operator's
    LOCK TABLE would) for the block, or `at_most` seconds."""
    with support.admin_connection() as db:
        row = db.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = %s AND table_name LIKE %s",
            (schema, "%events"),
        ).fetchone()
    assert row is not None
    table = f'"{schema}"."{row[0]}"'
    locked, done = threading.Event(), threading.Event()

    def hold() -> None:
        with support.admin_connection() as db, db.transaction():
            db.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
            locked.set()
            done.wait(timeout=at_most)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert locked.wait(timeout=30)
        yield
    finally:
        done.set()
        holder.join()


def _postgres_ledger(schema: str, lock_timeout: int) -> Ledger:
    return Ledger(
        env=eventsourcing_env(postgres_url(schema)) | {"POSTGRES_LOCK_TIMEOUT": str(lock_timeout)}
    )


@pytest.mark.postgres
def test_waiting_on_the_store_does_not_count_against_the_time_cap(
    schema: str, catalog: Catalog, one_worker: Sandbox, clock: Clock
) -> None:
    # The store's own bound on lock waits (20 s) is well past the 2 s wait below.
    with _postgres_ledger(schema, lock_timeout=20) as ledger:
        gateway = _gateway(ledger, catalog, one_worker, clock)
        alice = _alice(gateway)
        started = time.monotonic()
        with log_locked(schema, at_most=2.0):
            proposal = gateway.propose(
                alice, "python", f'get_balance(account="alice")\n{PAY_BOB}\n'
            )
        waited = time.monotonic() - started

    assert waited > TEST_LIMITS.wall_seconds  # it did wait on the store, past the 1 s cap
    assert proposal.status == "pending", proposal


@pytest.mark.postgres
def test_a_store_wait_past_the_stores_bound_is_not_the_programs_failure(
    schema: str, catalog: Catalog, one_worker: Sandbox, clock: Clock
) -> None:
    with _postgres_ledger(schema, lock_timeout=1) as ledger:
        gateway = _gateway(ledger, catalog, one_worker, clock)
        alice = _alice(gateway)
        head = ledger.recorder.max_notification_id()
        before = accounts_state(ledger)

        # The HTTP layer answers OperationalError 503 with Retry-After.
        with log_locked(schema, at_most=10.0), pytest.raises(OperationalError):
            gateway.propose(alice, "python", PAY_BOB)

        assert ledger.recorder.max_notification_id() == head  # no run: no failure recorded
        assert accounts_state(ledger) == before
        # The worker it held is back in the pool: the same program now goes through.
        assert gateway.propose(alice, "python", PAY_BOB).status == "pending"


def test_the_pool_is_configured_from_the_environment() -> None:
    assert load_settings({}).pool == PoolSettings(workers=2, wait_seconds=5.0)
    configured = load_settings(
        {"SLUICE_SANDBOX_WORKERS": "4", "SLUICE_SANDBOX_WAIT_SECONDS": "0.5"}
    ).pool
    assert configured == PoolSettings(workers=4, wait_seconds=0.5)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SLUICE_SANDBOX_WORKERS", "0"),
        ("SLUICE_SANDBOX_WORKERS", "two"),
        ("SLUICE_SANDBOX_WORKERS", "1.5"),
        ("SLUICE_SANDBOX_WAIT_SECONDS", "0"),
        ("SLUICE_SANDBOX_WAIT_SECONDS", "-1"),
        ("SLUICE_SANDBOX_WAIT_SECONDS", "soon"),
        ("SLUICE_SANDBOX_WAIT_SECONDS", "inf"),
    ],
)
def test_a_bad_pool_setting_is_refused_naming_it(variable: str, value: str) -> None:
    with pytest.raises(SettingsError) as refused:
        load_settings({variable: value})

    assert str(refused.value).startswith(f"{variable}={value!r}: ")


def test_the_cli_stops_at_a_bad_pool_setting_with_a_usage_error(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
        "SLUICE_SANDBOX_WORKERS": "none",
    }
    done = subprocess.run(
        [SLUICE, "directory"], env=env, capture_output=True, text=True, timeout=60, check=False
    )

    assert done.returncode == 2
    said = " ".join(done.stderr.split())  # the console wraps long lines
    assert said == (
        "error: SLUICE_SANDBOX_WORKERS='none': the number of sandbox workers must be a whole "
        "number, at least 1 (e.g. 2)"
    )
    assert not (tmp_path / "cli.db").exists()  # stopped before opening the store
