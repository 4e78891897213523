"""Programs run in the real sandbox against a unit of work; they commit all or nothing (P1).

Committed as production commits them: proposed, then the preview confirmed."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest

from application.ledger import Ledger
from gateway.core.program.runner import ProgramRunner
from tests.conftest import balances, store_state
from tests.programs import Programs, store_state_but_runs

BACK_AND_FORTH = """\
transfer(payer="alice", payee="bob", amount=10)
transfer(payer="bob", payee="carla", amount=10)
transfer(payer="carla", payee="bob", amount=10)
get_balance(account="bob")
"""

DAN_HAS_NO_ACCOUNT = """\
for friend in ["bob", "carla", "dan"]:
    transfer(payer="alice", payee=friend, amount=20)
"""


@pytest.fixture
def programs(runner: ProgramRunner) -> Programs:
    return Programs(runner)


def test_the_seeds_back_and_forth_commits_every_event_in_one_go(
    programs: Programs, demo_ledger: Ledger
) -> None:
    proposal = programs.propose(BACK_AND_FORTH)
    preview = proposal["preview"]

    assert preview["result"] == "10.00"
    assert [(e["account"], e["type"]) for e in preview["events"]] == [
        ("alice", "TransferDebited"),
        ("bob", "TransferCredited"),
        ("bob", "TransferDebited"),
        ("carla", "TransferCredited"),
        ("carla", "TransferDebited"),
        ("bob", "TransferCredited"),
    ]
    assert balances(demo_ledger)["alice"] == Decimal("100.00")  # a preview writes nothing

    outcome = programs.confirm(proposal)

    assert outcome.to_json()["status"] == "committed"
    assert outcome.changed == 6
    positions = [e["position"] for e in outcome.events]
    assert positions == list(range(positions[0], positions[0] + 6))  # contiguous in the log
    assert [e["data"] for e in outcome.events] == [e["data"] for e in preview["events"]]
    assert balances(demo_ledger) == {
        "alice": Decimal("90.00"),
        "bob": Decimal("10.00"),
        "carla": Decimal("0.00"),
    }


def test_the_seeds_loop_to_dan_leaves_every_balance_as_it_was(
    programs: Programs, demo_ledger: Ledger
) -> None:
    before = store_state_but_runs(demo_ledger)

    outcome = programs.run(DAN_HAS_NO_ACCOUNT)

    assert outcome.to_json() == {
        "status": "failed",
        "changed": "nothing",
        "events": [],
        "result": None,
        "error": "transfer: no account dan (line 2, column 5)",
    }
    assert store_state_but_runs(demo_ledger) == before


def test_a_refusal_cannot_be_caught_by_the_program(programs: Programs, demo_ledger: Ledger) -> None:
    before = store_state_but_runs(demo_ledger)
    program = """\
transfer(payer="alice", payee="bob", amount=5)
try:
    transfer(payer="alice", payee="dan", amount=5)
except Exception:
    pass
"""

    outcome = programs.run(program)

    assert outcome.error == "transfer: no account dan (line 3, column 5)"
    assert store_state_but_runs(demo_ledger) == before


def test_a_program_reads_its_own_writes_and_returns_its_last_expression(
    runner: ProgramRunner,
) -> None:
    program = """\
open_account(account="dan", owner="Dan")
receipt = transfer(payer="alice", payee="dan", amount=12.5, memo="welcome")
mine = [a["account"] for a in list_accounts(owner="Dan")]
{"dan": get_balance(account="dan"), "left": receipt["payer_balance"], "mine": mine}
"""

    ran = runner.preview(program)

    assert ran.ok, ran.error
    assert ran.preview.result == {"dan": "12.50", "left": "87.50", "mine": ["dan"]}
    assert [call.name for call in ran.preview.calls] == [
        "open_account",
        "transfer",
        "list_accounts",
        "get_balance",
    ]
    assert (ran.preview.calls[1].line, ran.preview.calls[1].column) == (2, 11)
    assert ran.preview.calls[1].arguments["amount"] == "12.50"


def test_a_read_only_program_commits_nothing_and_still_returns_its_result(
    programs: Programs, demo_ledger: Ledger
) -> None:
    before = store_state_but_runs(demo_ledger)

    outcome = programs.run('sum(a["balance"] for a in list_accounts())')

    assert outcome.to_json() == {
        "status": "committed",
        "changed": "nothing",
        "events": [],
        "result": "100.00",
        "error": None,
    }
    assert store_state_but_runs(demo_ledger) == before


def test_printed_output_is_kept_beside_the_preview(runner: ProgramRunner) -> None:
    ran = runner.preview('print("alice has", get_balance(account="alice"))')

    assert ran.ok, ran.error
    assert ran.preview.output == "alice has 100.00\n"


def test_committing_one_preview_twice_appends_once(programs: Programs, demo_ledger: Ledger) -> None:
    proposal = programs.propose('deposit(account="bob", amount=1)')
    first = programs.confirm(proposal)
    after_first = store_state(demo_ledger)

    second = programs.confirm(proposal)

    # The same outcome; the second answer has no log positions (it appended nothing).
    assert second == replace(first, events=[e | {"position": None} for e in first.events])
    assert first.changed == 1
    assert store_state(demo_ledger) == after_first
