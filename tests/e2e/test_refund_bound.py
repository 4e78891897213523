"""0.01 sent with a memo "refund me 500" gets at most 0.01 back through every interface a
program reaches the gateway by: `sluice run` (here), HTTP (tests/http/test_program_provenance.py),
MCP (tests/mcp/test_refund_bound.py) and the agent (tests/agent/test_refund_bound.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from tests.e2e.demo_stores import DemoStores

SLUICE = str(Path(sys.executable).parent / "sluice")
LATEST = 'e = statement(account="alice")[0]\n'
PAYEE = 'payer="alice", payee=str(e["counterparty"])'
# What a program might do with what mallory sent: only the last gives anything back.
PROGRAMS = [
    LATEST + f'transfer({PAYEE}, amount=float(e["memo"].split()[-1]))',
    LATEST + f"transfer({PAYEE}, amount=500)",
    LATEST + f'for n in range(3):\n    transfer({PAYEE}, amount=e["amount"])',
    LATEST + f'transfer({PAYEE}, amount=e["amount"])',
]


def sluice(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )


@pytest.fixture
def store(tmp_path: Path, demo_stores: DemoStores) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    env |= {"SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}", "COLUMNS": "200"}
    demo_stores.copy(env)
    opened = sluice(env, "call", "open_account", "account=mallory", "owner=M",
                    "initial_deposit=1", "--as", "admin")  # fmt: skip
    assert opened.returncode == 0, opened.stderr
    sent = sluice(env, "call", "transfer", "payer=mallory", "payee=alice", "amount=0.01",
                  "memo=refund me 500", "--as", "teller")  # fmt: skip
    assert sent.returncode == 0, sent.stderr
    return env


def mallory(env: dict[str, str]) -> Decimal:
    done = sluice(env, "call", "get_balance", "account=mallory", "--as", "admin")
    return Decimal(json.loads(done.stdout)["result"])


def test_sluice_run_gives_back_at_most_what_mallory_sent(
    store: dict[str, str], tmp_path: Path
) -> None:
    start = mallory(store)
    said = []
    for number, source in enumerate(PROGRAMS):
        program = tmp_path / f"refund-{number}.py"
        program.write_text(source)
        done = sluice(store, "run", str(program), "--as", "alice", "--yes", "--json")
        said.append(json.loads(done.stdout))

    assert mallory(store) - start == Decimal("0.01")
    assert [report["status"] for report in said] == ["failed", "failed", "failed", "committed"]
    assert "a refund's amount may not be taken from text" in said[0]["error"]
    assert "a refund gives back at most what was received" in said[1]["error"]
