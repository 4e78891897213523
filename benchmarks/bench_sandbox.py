"""Per-program overhead of the sandbox: a program of N use-case calls vs the same calls in Python.

Both sides run the same use cases on a unit of work over a fresh in-memory demo ledger
and commit once; they alternate in one run so machine noise hits both alike.

    python -m benchmarks.bench_sandbox [--rounds 30]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from application.bank import BANK_USE_CASES, DIRECTORY_HEADER
from application.bank.movements import Deposit
from application.bank.queries import GetBalance
from application.executor import execute
from application.ledger import Ledger
from application.unit_of_work import UnitOfWork
from application.use_case import UseCase
from gateway.core.catalog import Catalog
from gateway.core.program.limits import ProgramLimits
from gateway.core.program.runner import ProgramRunner
from gateway.core.program.sandbox import Sandbox
from tests.direct import seed_demo


def direct(ledger: Ledger, use_cases: list[UseCase[Any]]) -> None:
    uow = UnitOfWork(ledger)
    for use_case in use_cases:
        execute(use_case, uow)
    uow.commit()


def fresh_ledger() -> Ledger:
    ledger = Ledger(env={"PERSISTENCE_MODULE": "infrastructure.popo"})
    seed_demo(ledger)
    return ledger


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    rounds = parser.parse_args().rounds

    limits = ProgramLimits(max_calls=200, wall_seconds=10)
    sandbox = Sandbox(limits)
    catalog = Catalog(DIRECTORY_HEADER, BANK_USE_CASES)

    def program(source: str) -> None:
        # The preview's own unit of work commits, as `direct` does: the two sides differ
        # only by the sandbox (a proposal would add its run and a stored preview).
        runner = ProgramRunner(fresh_ledger(), catalog, sandbox, limits)
        preview = runner.preview(source)
        if not preview.ok:
            raise RuntimeError(str(preview.error))
        preview.uow.commit()

    workloads: list[tuple[str, str, list[UseCase[Any]]]] = [
        (
            "1 deposit",
            'deposit(account="bob", amount=1)',
            [Deposit(account="bob", amount=Decimal(1))],
        ),
        (
            "100 deposits",
            'for i in range(100):\n    deposit(account="bob", amount=1)',
            [Deposit(account="bob", amount=Decimal(1)) for _ in range(100)],
        ),
        (
            "100 balance reads",
            'for i in range(100):\n    get_balance(account="alice")',
            [GetBalance(account="alice") for _ in range(100)],
        ),
    ]
    print(f"sandbox overhead, median of {rounds} rounds (pydantic-monty pool, in-memory store)\n")
    print(f"{'workload':<20}{'sandbox ms':>12}{'direct ms':>12}{'overhead ms':>13}{'ratio':>8}")
    for name, source, use_cases in workloads:
        program(source)  # warm the pool and the type checker
        in_sandbox, in_python = [], []
        for _ in range(rounds):
            in_sandbox.append(timed(functools.partial(program, source)))
            in_python.append(timed(lambda: direct(fresh_ledger(), use_cases)))  # noqa: B023
        boxed, plain = statistics.median(in_sandbox) * 1e3, statistics.median(in_python) * 1e3
        print(f"{name:<20}{boxed:>12.2f}{plain:>12.2f}{boxed - plain:>13.2f}{boxed / plain:>8.1f}")
    sandbox.close()


if __name__ == "__main__":
    main()
