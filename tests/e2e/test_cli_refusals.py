"""From a terminal, a use case's refusal is named as the HTTP API names it (`refusal`, the
domain rule in kebab case), on every path that runs a use case: a program, a plan step, a
direct call or read, and a confirmation whose fresh preview now fails."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.test_cli import run_json, sluice, store  # noqa: F401 (the fixture)

PLAN_PAY_DAN = (
    '{"steps": [{"tool": "transfer", "args": {"payer": "alice", "payee": "dan", "amount": 1}}]}'
)


def test_run_json_names_the_refusal_of_a_program_and_of_a_plan_step(
    store: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    program = tmp_path / "pay_dan.py"
    program.write_text('transfer(payer="alice", payee="dan", amount=1)\n')
    plan = tmp_path / "pay_dan.json"
    plan.write_text(PLAN_PAY_DAN)

    program_code, by_program = run_json(store, program, "--yes")
    plan_code, by_plan = run_json(store, plan, "--language", "plan", "--yes")

    assert (program_code, plan_code) == (1, 1)
    assert by_program == {
        "status": "failed",
        "changed": "nothing",
        "events": [],
        "result": None,
        "error": "transfer: no account dan (line 1, column 1)",
        "refusal": "account-not-found",
    }
    assert (by_plan["error"], by_plan["refusal"]) == (
        "transfer: no account dan (step 1)",
        "account-not-found",
    )


def test_call_names_the_refusal_of_a_direct_write_and_a_direct_read(
    store: dict[str, str],  # noqa: F811
) -> None:
    write = sluice(
        store, "call", "transfer", "payer=alice", "payee=dan", "amount=1", "--as", "alice"
    )
    read = sluice(store, "call", "get_balance", "account=dan", "--as", "teller")

    assert (write.returncode, read.returncode) == (1, 1)
    assert {k: json.loads(write.stdout)[k] for k in ("kind", "error", "refusal")} == {
        "kind": "refused",
        "error": "transfer: no account dan",
        "refusal": "account-not-found",
    }
    assert {k: json.loads(read.stdout)[k] for k in ("kind", "error", "refusal")} == {
        "kind": "refused",
        "error": "get_balance: no account dan",
        "refusal": "account-not-found",
    }


def test_confirm_json_names_the_refusal_when_the_fresh_preview_now_fails(
    store: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    program = tmp_path / "pay_bob.py"
    program.write_text('transfer(payer="alice", payee="bob", amount=60, memo="rent")\n')
    proposed = sluice(store, "run", str(program), "--key", "sk-agent-demo-alice", "--json")
    pending = json.loads(proposed.stdout)
    assert pending["status"] == "pending", proposed.stderr
    # Meanwhile alice spends most of her money: the program would now overdraw her account.
    spent = sluice(store, "call", "withdraw", "account=alice", "amount=50", "--as", "alice")
    assert spent.returncode == 0, spent.stdout

    confirmed = sluice(store, "confirm", pending["run_id"], "--as", "alice", "--yes", "--json")

    outcome = json.loads(confirmed.stdout)
    assert confirmed.returncode == 1
    assert (outcome["status"], outcome["changed"]) == ("failed", "nothing")
    assert "the accounts changed since the preview and the program now fails" in outcome["error"]
    assert outcome["refusal"] == "insufficient-funds"
