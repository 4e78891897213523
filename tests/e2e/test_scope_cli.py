"""From a terminal: keys with scope agent are issued, propose, and are refused at confirm;
the person's key confirms the same proposal with `sluice confirm`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.test_cli import sluice, store  # noqa: F401 (the fixture)


def words(text: str) -> str:
    return " ".join(text.split())


def test_an_agent_key_proposes_and_a_person_confirms(
    store: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    added = sluice(store, "principal", "add", "dan", "--role", "customer", "--owns", "carla",
                   "--scope", "agent")  # fmt: skip
    assert added.returncode == 0, added.stderr
    agent_key = added.stdout.strip()
    program = tmp_path / "pay.py"
    program.write_text('get_balance(account="carla")\n')
    read = sluice(store, "run", str(program), "--key", agent_key, "--json")
    assert read.returncode == 0 and json.loads(read.stdout)["result"] == "0.00"

    direct = sluice(store, "call", "transfer", "payer=carla", "payee=bob", "amount=1",
                    "--key", agent_key)  # fmt: skip
    assert direct.returncode == 1
    assert "scope agent may not write directly" in json.loads(direct.stdout)["error"]

    fund = sluice(store, "call", "deposit", "account=carla", "amount=20", "--as", "teller")
    assert fund.returncode == 0, fund.stdout
    program.write_text('transfer(payer="carla", payee="bob", amount=12, memo="agent")\n')
    proposed = sluice(store, "run", str(program), "--key", agent_key, "--json")
    pending = json.loads(proposed.stdout)
    assert proposed.returncode == 1 and pending["status"] == "pending"
    assert f"sluice confirm {pending['run_id']}" in words(proposed.stderr + proposed.stdout)

    refused = sluice(store, "confirm", pending["run_id"], "--key", agent_key, "--yes")
    assert refused.returncode == 2
    assert "a key with scope agent may propose but never confirm" in words(refused.stderr)

    person_key = sluice(store, "principal", "key", "dan").stdout.strip()
    confirmed = sluice(store, "confirm", pending["run_id"], "--key", person_key, "--json",
                       stdin="y\n")  # fmt: skip
    assert confirmed.returncode == 0, confirmed.stderr
    assert json.loads(confirmed.stdout)["changed"] == 2
    balance = sluice(store, "call", "get_balance", "account=carla", "--key", agent_key)
    assert json.loads(balance.stdout)["result"] == "8.00"


def test_scope_refusals_name_the_reason(store: dict[str, str]) -> None:  # noqa: F811
    bad = sluice(store, "principal", "add", "erin", "--role", "customer", "--scope", "robot")
    nobody = sluice(store, "principal", "key", "mallory", "--scope", "agent")
    missing = sluice(store, "confirm", "no-such-run", "--as", "alice", "--yes")

    assert bad.returncode == 2 and "scope 'robot' is not one of human, agent" in words(bad.stderr)
    assert nobody.returncode == 2 and "no principal mallory" in nobody.stderr
    assert missing.returncode == 2 and "no proposal no-such-run" in missing.stderr
