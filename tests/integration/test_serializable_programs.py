"""P2: a commit is refused if anything the program read or wrote changed since its preview."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from application.bank.movements import Deposit
from application.ledger import Ledger
from application.store_config import eventsourcing_env
from gateway.core.catalog import Catalog
from gateway.core.program.runner import ProgramRunner
from gateway.core.program.sandbox import Sandbox
from tests.conftest import TEST_LIMITS, balances
from tests.direct import call_now, seed_demo
from tests.programs import Programs, store_state_but_runs

KEEP_FORTY_IN_TOTAL = """\
total = get_balance(account="alice") + get_balance(account="bob")
if total - 40 >= 40:
    withdraw(account="{account}", amount=40)
"""


@pytest.fixture
def programs(runner: ProgramRunner) -> Programs:
    return Programs(runner)


def test_a_lost_update_is_refused_at_commit(programs: Programs, demo_ledger: Ledger) -> None:
    first = programs.propose('withdraw(account="alice", amount=60)')
    second = programs.propose('withdraw(account="alice", amount=60)')  # each saw 100.00

    assert programs.confirm(first).status == "committed"
    after_first = store_state_but_runs(demo_ledger)
    refused = programs.confirm(second)

    assert (refused.status, refused.kind) == ("failed", "conflict")
    assert refused.error == (
        "the accounts changed since the preview and the program now fails: "
        "withdraw: alice has only 40.00 (line 1, column 1); nothing was written"
    )
    assert store_state_but_runs(demo_ledger) == after_first
    assert balances(demo_ledger)["alice"] == Decimal("40.00")


def test_a_write_skew_is_refused_at_commit(programs: Programs, demo_ledger: Ledger) -> None:
    call_now(demo_ledger, Deposit(account="bob", amount=Decimal(50)))
    call_now(demo_ledger, Deposit(account="carla", amount=Decimal(1)))
    # alice 100, bob 50: each program alone keeps at least 40 in total.
    from_alice = programs.propose(KEEP_FORTY_IN_TOTAL.format(account="alice"))
    from_bob = programs.propose(KEEP_FORTY_IN_TOTAL.format(account="bob"))
    assert len(from_alice["preview"]["events"]) == len(from_bob["preview"]["events"]) == 1

    assert programs.confirm(from_alice).status == "committed"
    refused = programs.confirm(from_bob)

    assert refused.to_json()["changed"] == "nothing"
    assert (refused.kind, refused.error) == (
        "conflict",
        "the accounts this program read or wrote changed since the preview; nothing was "
        "written; here is a fresh preview to confirm",
    )
    assert balances(demo_ledger)["bob"] == Decimal("50.00")


def test_a_program_that_only_read_an_account_is_not_refused_for_an_unrelated_change(
    programs: Programs, demo_ledger: Ledger
) -> None:
    proposal = programs.propose(KEEP_FORTY_IN_TOTAL.format(account="alice"))
    call_now(demo_ledger, Deposit(account="carla", amount=Decimal(5)))

    assert programs.confirm(proposal).status == "committed"


def test_two_processes_on_one_sqlite_file_cannot_both_commit_a_skewed_decision(
    tmp_path: Path, catalog: Catalog, sandbox: Sandbox
) -> None:
    env = eventsourcing_env(f"sqlite:///{tmp_path / 'shared.db'}")
    with Ledger(env=env) as one, Ledger(env=env) as other:
        seed_demo(one)
        call_now(one, Deposit(account="bob", amount=Decimal(50)))
        programs_one = Programs(ProgramRunner(one, catalog, sandbox, TEST_LIMITS))
        programs_other = Programs(ProgramRunner(other, catalog, sandbox, TEST_LIMITS))
        from_alice = programs_one.propose(KEEP_FORTY_IN_TOTAL.format(account="alice"))
        from_bob = programs_other.propose(KEEP_FORTY_IN_TOTAL.format(account="bob"))

        committed = programs_one.confirm(from_alice)
        refused = programs_other.confirm(from_bob)

        assert (committed.status, refused.status) == ("committed", "failed")
        assert balances(other) == {
            "alice": Decimal("60.00"),
            "bob": Decimal("50.00"),
            "carla": Decimal("0.00"),
        }
