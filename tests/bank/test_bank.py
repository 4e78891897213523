"""The short bank test: 3 gateway processes on one Postgres database, concurrent transfers,
and each fault once (sessions terminated, a link cut, a gateway killed with SIGKILL); then
money is conserved, every acknowledged transfer is in the log exactly once, nothing is half
applied, the read models equal a replay and `sluice audit verify` passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bank.harness import Settings, run_bank

pytestmark = pytest.mark.postgres


def test_three_gateways_keep_the_books_straight_through_faults(tmp_path: Path) -> None:
    report = run_bank(Settings(processes=3, seconds=12), tmp_path, say=lambda _: None)

    print("\n".join(report.lines()))
    assert report.ok, "\n".join(report.lines())
    assert sum(op.acknowledged for op in report.ops) > 50
    assert {f.kind for f in report.faults} == {"pg_terminate_backend", "cut link", "kill -9"}
    assert all(fault.recovery is not None for fault in report.faults), report.lines()
