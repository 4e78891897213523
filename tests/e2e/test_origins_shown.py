"""`sluice confirm` and the MCP confirmation say, before the person decides, where each value
the program did not write itself came from, and mark one another party's text set."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.bootstrap import Sluice
from gateway.interfaces.mcp.confirmation import describe
from tests.e2e.demo_stores import DemoStores

SLUICE = str(Path(sys.executable).parent / "sluice")
PAY_THE_BILL = (
    'bills = [e for e in statement(account="alice") if e["counterparty"] == "utility"]\n'
    'transfer(payer="alice", payee="bob", amount=float(bills[0]["memo"].split()[-1]))'
)


@pytest.fixture
def store(tmp_path: Path, demo_stores: DemoStores) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    env |= {"SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}", "COLUMNS": "200"}
    demo_stores.copy(env)
    return env


def agent_proposes_paying_a_bill(env: dict[str, str]) -> str:
    """utility sends alice a bill in a memo; alice's agent proposes paying bob that much."""
    with Sluice(env["SLUICE_DATABASE_URL"]) as sluice:
        gateway = sluice.gateway
        admin = gateway.authenticate("sk-demo-admin")
        teller = gateway.authenticate("sk-demo-teller")
        assert admin is not None and teller is not None
        opened = {"account": "utility", "owner": "Utility", "initial_deposit": 5}
        gateway.call(admin, "open_account", opened)
        bill = {"payer": "utility", "payee": "alice", "amount": "0.01", "memo": "due: 12.50"}
        gateway.call(teller, "transfer", bill)
        agent = gateway.authenticate("sk-agent-demo-alice")
        assert agent is not None
        return gateway.propose(agent, "python", PAY_THE_BILL, request="pay the bill").id


def test_sluice_confirm_marks_an_amount_a_bill_s_text_set(store: dict[str, str]) -> None:
    run_id = agent_proposes_paying_a_bill(store)

    shown = subprocess.run(
        [SLUICE, "confirm", run_id, "--as", "alice"],
        env=store,
        input="n\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    out = " ".join(shown.stdout.split())
    assert "Where the program took the values it did not write itself:" in out
    assert "transfer (line 2) amount: from statement (line 1) memo, text" in out
    assert "(TEXT WRITTEN BY UTILITY)" in out
    assert out.index("TEXT WRITTEN BY UTILITY") < out.index("Commit these 2 events?")


def test_the_mcp_confirmation_marks_it_too(store: dict[str, str]) -> None:
    run_id = agent_proposes_paying_a_bill(store)
    with Sluice(store["SLUICE_DATABASE_URL"]) as sluice:
        alice = sluice.gateway.authenticate("sk-demo-alice")
        assert alice is not None
        proposal = sluice.gateway.proposal(alice, run_id)

    text = describe(proposal, "http://127.0.0.1:8000/#/proposals/x", "Confirm?")

    assert "Where the program took the values it did not write itself:" in text
    assert "amount: from statement (line 1) memo, text" in text
    assert "(TEXT WRITTEN BY UTILITY)" in text
