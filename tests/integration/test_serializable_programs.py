"""P2: a commit is refused if anything the program read or wrote changed since its preview."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from application.bank.movements import Deposit
from application.demo import seed_demo
from application.direct_call import call_now
from application.ledger import Ledger
from application.store_config import eventsourcing_env
from gateway.catalog import Catalog
from gateway.program.runner import ProgramRunner
from gateway.program.sandbox import Sandbox
from tests.conftest import TEST_LIMITS, balances, store_state

KEEP_FORTY_IN_TOTAL = """\
total = get_balance(account="alice") + get_balance(account="bob")
if total - 40 >= 40:
    withdraw(account="{account}", amount=40)
"""


def test_a_lost_update_is_refused_at_commit(runner: ProgramRunner, demo_ledger: Ledger) -> None:
    first = runner.preview('withdraw(account="alice", amount=60)')
    second = runner.preview('withdraw(account="alice", amount=60)')
    assert first.ok and second.ok  # each saw 100.00

    assert runner.commit(first).status == "committed"
    after_first = store_state(demo_ledger)
    refused = runner.commit(second)

    assert refused.status == "failed"
    assert refused.error is not None
    assert refused.error.startswith("conflict: ")
    assert refused.error.endswith("changed since it was read; nothing was written")
    assert store_state(demo_ledger) == after_first
    assert balances(demo_ledger)["alice"] == Decimal("40.00")


def test_a_write_skew_is_refused_at_commit(runner: ProgramRunner, demo_ledger: Ledger) -> None:
    call_now(demo_ledger, Deposit(account="bob", amount=Decimal(50)))
    call_now(demo_ledger, Deposit(account="carla", amount=Decimal(1)))
    # alice 100, bob 50: each program alone keeps at least 40 in total.
    from_alice = runner.preview(KEEP_FORTY_IN_TOTAL.format(account="alice"))
    from_bob = runner.preview(KEEP_FORTY_IN_TOTAL.format(account="bob"))
    assert len(from_alice.events) == len(from_bob.events) == 1

    assert runner.commit(from_alice).status == "committed"
    refused = runner.commit(from_bob)

    assert refused.to_json()["changed"] == "nothing"
    assert refused.error == "conflict: account alice changed since it was read; nothing was written"
    assert balances(demo_ledger)["bob"] == Decimal("50.00")


def test_a_program_that_only_read_an_account_is_not_refused_for_an_unrelated_change(
    runner: ProgramRunner, demo_ledger: Ledger
) -> None:
    preview = runner.preview(KEEP_FORTY_IN_TOTAL.format(account="alice"))
    call_now(demo_ledger, Deposit(account="carla", amount=Decimal(5)))

    assert runner.commit(preview).status == "committed"


def test_two_processes_on_one_sqlite_file_cannot_both_commit_a_skewed_decision(
    tmp_path: Path, catalog: Catalog, sandbox: Sandbox
) -> None:
    env = eventsourcing_env(f"sqlite:///{tmp_path / 'shared.db'}")
    with Ledger(env=env) as one, Ledger(env=env) as other:
        seed_demo(one)
        call_now(one, Deposit(account="bob", amount=Decimal(50)))
        runner_one = ProgramRunner(one, catalog, sandbox, TEST_LIMITS)
        runner_other = ProgramRunner(other, catalog, sandbox, TEST_LIMITS)
        from_alice = runner_one.preview(KEEP_FORTY_IN_TOTAL.format(account="alice"))
        from_bob = runner_other.preview(KEEP_FORTY_IN_TOTAL.format(account="bob"))

        committed = runner_one.commit(from_alice)
        refused = runner_other.commit(from_bob)

        assert (committed.status, refused.status) == ("committed", "failed")
        assert balances(other) == {
            "alice": Decimal("60.00"),
            "bob": Decimal("50.00"),
            "carla": Decimal("0.00"),
        }
