"""Programs are type-checked in warm sessions; each is still checked alone, in full, first."""

from __future__ import annotations

from decimal import Decimal

import pytest

from application.ledger import Ledger
from gateway.core.catalog import Catalog
from gateway.core.program.runner import ProgramRunner
from gateway.core.program.sandbox import Sandbox
from gateway.core.program.type_checker import (
    CHECKS_PER_SESSION,
    STOP,
    CheckedTypeError,
    TypeChecker,
)
from tests.conftest import TEST_LIMITS, balances


def test_a_name_one_check_defined_is_unknown_to_the_next_check_in_the_same_session(
    catalog: Catalog,
) -> None:
    checker = TypeChecker(sessions=1, wait_seconds=5, request_timeout=10)
    try:
        checker.check('kept = "alice"\nget_balance(account=kept)', catalog.stubs)
        with pytest.raises(CheckedTypeError) as refused:
            checker.check("get_balance(account=kept)", catalog.stubs)
    finally:
        checker.close()

    assert "main.py:1:21: error[unresolved-reference] Name `kept` used when not defined" in (
        refused.value.display()
    )


def test_a_program_refused_by_its_type_check_is_refused_again_the_same_way(
    runner: ProgramRunner,
) -> None:
    source = 'x = 1\ndeposit(account="bob", amount="ten")'
    errors = [runner.preview(source).error for _ in range(3)]

    assert {str(error) for error in errors} == {
        "type error: Argument to function `deposit` is incorrect: "
        'Expected `Decimal | float`, found `Literal["ten"]` (line 2, column 24)'
    }


def test_a_type_error_names_the_programs_own_line_and_column(runner: ProgramRunner) -> None:
    preview = runner.preview("a = 1\nb = 2\n\nget_balance(account=a)\n")

    assert preview.error is not None
    assert (preview.error.line, preview.error.column) == (4, 13)


def test_a_program_failing_its_type_check_runs_nothing_before_the_error(
    runner: ProgramRunner, demo_ledger: Ledger
) -> None:
    before = balances(demo_ledger)

    ran = runner.preview(
        'transfer(payer="alice", payee="bob", amount=5)\nprint("ran")\n'
        'deposit(account="bob", amount="ten")'
    )

    assert ran.error is not None and ran.error.stage == "type"
    assert ran.preview.calls == [] and ran.preview.output == "" and not ran.writes
    assert balances(demo_ledger) == before


def test_a_program_naming_the_checkers_stop_is_still_checked_in_full(
    runner: ProgramRunner,
) -> None:
    preview = runner.preview(f'{STOP} = 1\ndeposit(account="bob", amount="ten")')

    assert preview.error is not None
    assert preview.error.stage == "type"
    assert (preview.error.line, preview.error.column) == (2, 24)


def test_a_checker_session_recycled_after_its_checks_still_checks_and_runs(
    demo_ledger: Ledger, catalog: Catalog
) -> None:
    sandbox = Sandbox(TEST_LIMITS, workers=1)
    try:
        runner = ProgramRunner(demo_ledger, catalog, sandbox, TEST_LIMITS)
        bad = 'get_balance(account="alice")\nget_balance(account=1)'
        for _ in range(CHECKS_PER_SESSION + 2):
            refused = runner.preview(bad)
            assert refused.error is not None and refused.error.stage == "type"
        good = runner.preview('deposit(account="bob", amount=2)')
        assert good.ok, good.error
        assert good.preview.calls[0].result["balance"] == "2.00"
    finally:
        sandbox.close()
    assert balances(demo_ledger)["bob"] == Decimal(0)


INT_PROBE = "def probe() -> int: ...\n"
STR_PROBE = "def probe() -> str: ...\n"


def test_a_program_that_passed_is_not_checked_again_against_the_same_stubs() -> None:
    checker = TypeChecker(sessions=1, wait_seconds=0.2, request_timeout=10)
    try:
        checker.check("total = probe() + 1", INT_PROBE)
        held = checker._take(INT_PROBE)  # the only session, so no check can run now
        try:
            checker.check("total = probe() + 1", INT_PROBE)  # remembered: no session needed
            with pytest.raises(TimeoutError):
                checker.check("total = probe() + 2", INT_PROBE)  # a new text waits for one
        finally:
            checker._give_back(held, keep=True)
    finally:
        checker.close()


def test_a_program_that_passed_against_some_stubs_is_checked_in_full_against_others() -> None:
    checker = TypeChecker(sessions=1, wait_seconds=5, request_timeout=10)
    try:
        checker.check("total = probe() + 1", INT_PROBE)
        with pytest.raises(CheckedTypeError) as refused:
            checker.check("total = probe() + 1", STR_PROBE)
        checker.check("total = probe() + 1", INT_PROBE)
    finally:
        checker.close()

    assert "unsupported-operator" in refused.value.display()
