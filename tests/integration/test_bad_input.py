"""Bad programs: one clear line naming the problem and its place; the store is unchanged."""

from __future__ import annotations

import pytest

from application.ledger import Ledger
from gateway.core.program.runner import ProgramRunner
from tests.conftest import TEST_LIMITS
from tests.programs import Programs, store_state_but_runs

T = 'transfer(payer="alice", payee="bob", '
# Every bad program follows a good call, so that "nothing" also means "not the part that worked".
PREFIX = 'deposit(account="carla", amount=1)\n'

BAD_PROGRAMS = [
    ("syntax error", T + "amount=10", "syntax error: '(' was never closed (line 1, column 9)"),
    (
        "type error",
        T + 'amount="ten")',
        "type error: Argument to function `transfer` is incorrect: "
        'Expected `Decimal | float`, found `Literal["ten"]` (line 1, column 38)',
    ),
    (
        "unknown function",
        "frobnicate(account=1)",
        "unknown function or name frobnicate (line 1, column 1)",
    ),
    (
        "missing argument",
        'transfer(payer="alice", payee="bob")',
        "type error: No argument provided for required parameter `amount` of function `transfer` "
        "(line 1, column 1)",
    ),
    (
        "extra argument",
        T + "amount=1, tip=2)",
        "type error: Argument `tip` does not match any known parameter of function `transfer` "
        "(line 1, column 48)",
    ),
    (
        "positional arguments",
        'transfer("alice", "bob", 1)',
        "transfer: arguments must be given by name, as in name=value (line 1, column 1)",
    ),
    (
        "negative amount",
        T + "amount=-5)",
        "transfer: amount must be positive, got -5 (line 1, column 1)",
    ),
    (
        "zero amount",
        "x = 1\n" + T + "amount=0)",
        "transfer: amount must be positive, got 0 (line 2, column 1)",
    ),
    (
        "non-numeric amount",
        T + "amount=None)",
        "type error: Argument to function `transfer` is incorrect: "
        "Expected `Decimal | float`, found `None` (line 1, column 38)",
    ),
    (
        "more than 2 decimal places",
        T + "amount=1.005)",
        "transfer: amount 1.005 has more than 2 decimal places (line 1, column 1)",
    ),
    (
        "over the size limit",
        "x = 1\n" * 4000,
        f"program size: {24000 + len(PREFIX)} bytes is over the limit "
        f"of {TEST_LIMITS.max_source_bytes}",
    ),
    ("infinite loop", "while True:\n    pass", "time limit: the program ran longer than 1 s"),
    (
        "huge allocation",
        "x = 1\nblob = [0] * 10**9",
        "memory limit: the program needed more than 16 MiB (line 2, column 8)",
    ),
    (
        "deep recursion",
        "def dive(n):\n    return dive(n + 1)\ndive(0)",
        "recursion limit: calls nested deeper than 200 (line 2, column 12)",
    ),
    (
        "import os",
        "import os\nos.listdir('/')",
        "import is not allowed: a program can only call the use cases (line 1, column 1)",
    ),
    ("open()", "open('/etc/passwd').read()", "open is not allowed in a program (line 1, column 1)"),
    (
        "dunder access",
        "x = ().__class__.__bases__",
        "access to attribute __bases__ is not allowed (line 1, column 5)",
    ),
    ("dunder name", "__builtins__", "__builtins__ is not allowed (line 1, column 1)"),
    ("eval", "eval('1 + 1')", "eval is not allowed in a program (line 1, column 1)"),
    (
        "too many calls",
        'for i in range(100):\n    get_balance(account="alice")',
        "call limit: the program made more than 50 use-case calls (line 2, column 5)",
    ),
    (
        "too much printing",
        'for i in range(100000):\n    print("spam" * 100)',
        "output limit: the program printed more than 65536 bytes",
    ),
    (
        "redefining a use case",
        "def transfer(**kw):\n    return 1",
        "transfer is a use case and cannot be redefined (line 1, column 1)",
    ),
    # After the deposit returned data, an exception's message may quote it: not shown.
    (
        "runtime error",
        "x = 1 / 0",
        "ZeroDivisionError; its message is not shown, as it may quote data the program read "
        "(line 1, column 5)",
    ),
]


@pytest.mark.parametrize(
    ("program", "error"),
    [case[1:] for case in BAD_PROGRAMS],
    ids=[case[0] for case in BAD_PROGRAMS],
)
def test_a_bad_program_gets_one_clear_line_and_changes_nothing(
    runner: ProgramRunner, demo_ledger: Ledger, program: str, error: str
) -> None:
    source = PREFIX + program
    expected = _shift_line(error)
    before = store_state_but_runs(demo_ledger)

    outcome = Programs(runner).run(source)

    assert outcome.to_json() == {
        "status": "failed",
        "changed": "nothing",
        "events": [],
        "result": None,
        "error": expected,
    }
    assert "\n" not in expected
    assert store_state_but_runs(demo_ledger) == before


def test_the_sandbox_keeps_serving_after_every_bad_program(runner: ProgramRunner) -> None:
    for _name, program, _error in BAD_PROGRAMS:
        runner.preview(program)

    ran = runner.preview('get_balance(account="alice")')

    assert ran.ok, ran.error
    assert ran.preview.result == "100.00"


def _shift_line(error: str) -> str:
    """The prefixed deposit moves every position down one line."""
    import re

    return re.sub(r"\(line (\d+),", lambda m: f"(line {int(m.group(1)) + 1},", error)
