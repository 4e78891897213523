"""What a new user trips over at the terminal, each through the real `sluice` process: the
language of a plan file, short run ids, the store of the wrong folder, exit codes, widths."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from application import principals
from gateway.bootstrap import Sluice
from tests.e2e.demo_stores import DemoStores

SLUICE = str(Path(sys.executable).parent / "sluice")
BORDERS = "│┃┏┓┗┛┡┩└┘┳┻╇━─"


def sluice(
    env: dict[str, str], *args: str, cwd: Path | None = None, columns: int | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {**env, "COLUMNS": str(columns or 300)}  # an error message on one line
    return subprocess.run(
        [SLUICE, *args], env=environment, capture_output=True, text=True, cwd=cwd,
        timeout=120, check=False,
    )  # fmt: skip


@pytest.fixture
def store(tmp_path: Path, demo_stores: DemoStores) -> dict[str, str]:
    env = {**os.environ, "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'edges.db'}"}
    demo_stores.copy(env)
    return env


def log_head(env: dict[str, str]) -> int:
    done = sluice(env, "events")
    return len(done.stdout.splitlines())


def test_a_json_file_runs_as_a_plan_without_being_told(
    store: dict[str, str], tmp_path: Path
) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"steps": [{"tool": "transfer", "args": {
        "payer": "alice", "payee": "bob", "amount": 5, "memo": "plan"}}]}))  # fmt: skip

    done = sluice(store, "run", str(plan), "--as", "alice", "--yes", "--json")

    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["status"] == "committed"
    assert outcome["changed"] == 2  # the debit and the credit: it ran as a plan, not Python


def test_an_empty_program_is_refused_and_nothing_is_written(
    store: dict[str, str], tmp_path: Path
) -> None:
    before = log_head(store)
    for name, text in (("empty.py", ""), ("blank.json", "  \n\n")):
        program = tmp_path / name
        program.write_text(text)

        done = sluice(store, "run", str(program), "--as", "alice", "--yes")

        assert done.returncode == 2
        assert f"program {program} is empty" in done.stderr
    assert log_head(store) == before


def test_a_run_is_named_by_the_start_of_its_id_unless_more_than_one_run_starts_so(
    store: dict[str, str],
) -> None:
    with Sluice(store["SLUICE_DATABASE_URL"]) as system:
        admin = system.gateway.authenticate(principals.demo_key("admin"))
        for _ in range(17):  # 17 runs and 16 hex digits: two runs' ids start alike
            system.gateway.call(admin, "deposit", {"account": "bob", "amount": "1.00"})
        system.read_models.catch_up()
        ids = [row.run_id for row in system.read_models.store.runs()]
    shared, _ = Counter(i[0] for i in ids).most_common(1)[0]
    unique = next(i for i in ids if sum(j.startswith(i[:8]) for j in ids) == 1)

    by_prefix = sluice(store, "audit", "run", unique[:8], "--json")
    ambiguous = sluice(store, "audit", "run", shared)
    not_hex = sluice(store, "audit", "run", "run-one")
    nobody = sluice(store, "audit", "run", "0" * 32)

    assert by_prefix.returncode == 0, by_prefix.stderr
    assert json.loads(by_prefix.stdout)["run_id"] == unique
    assert ambiguous.returncode == 1
    assert "is ambiguous: several runs' ids start with it" in ambiguous.stderr
    assert "is hexadecimal" in not_hex.stderr
    assert nobody.returncode == 1 and "no run" in nobody.stderr


def test_confirm_takes_the_short_id_a_table_shows(store: dict[str, str], tmp_path: Path) -> None:
    program = tmp_path / "pay.py"
    program.write_text('transfer(payer="alice", payee="bob", amount=3, memo="short")\n')
    proposed = sluice(store, "run", str(program), "--key", principals.demo_agent_key("alice"),
                      "--json")  # fmt: skip
    run_id = json.loads(proposed.stdout)["run_id"]

    confirmed = sluice(store, "confirm", run_id[:8], "--as", "alice", "--yes", "--json")

    assert confirmed.returncode == 0, confirmed.stderr
    assert json.loads(confirmed.stdout)["status"] == "committed"


def test_a_command_in_a_folder_without_a_store_says_so_and_creates_none(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SLUICE_DATABASE_URL"}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    program = tmp_path / "p.py"
    program.write_text("list_accounts()\n")

    runs = sluice(env, "run", str(program), "--as", "alice", cwd=elsewhere)
    mcp = sluice({**env, "SLUICE_API_KEY": "sk-demo-alice"}, "mcp", cwd=elsewhere)
    audit = sluice(env, "audit", "verify", cwd=elsewhere)
    named = sluice({**env, "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path}/typo.db"},
                   "confirm", "abc", "--as", "alice")  # fmt: skip

    for done in (runs, mcp, audit):
        assert done.returncode == 2
        assert f"no store at {elsewhere / 'var' / 'sluice.db'}" in " ".join(done.stderr.split())
    assert named.returncode == 2 and f"no store at {tmp_path}/typo.db" in named.stderr
    assert not (elsewhere / "var").exists()
    assert not (tmp_path / "typo.db").exists()


def test_an_unknown_key_names_the_store_that_was_asked(store: dict[str, str]) -> None:
    done = sluice(store, "directory", "--key", "sk-not-issued-here")

    assert done.returncode == 2
    assert "the store is sqlite:///" in done.stderr.replace("\n", "")


def test_a_replay_to_an_earlier_position_succeeds(store: dict[str, str]) -> None:
    done = sluice(store, "replay", "--to", "5", "--json")

    assert done.returncode == 0, done.stdout + done.stderr
    assert {r["position"] for r in json.loads(done.stdout)} == {5}


def test_audit_event_reads_as_text_and_as_json_only_when_asked(store: dict[str, str]) -> None:
    text = sluice(store, "audit", "event", "3")
    asked = sluice(store, "audit", "event", "3", "--json")

    assert text.returncode == asked.returncode == 0
    assert text.stdout.startswith("Event 3: Account.Opened on alice, version 1")
    with pytest.raises(json.JSONDecodeError):
        json.loads(text.stdout)
    assert json.loads(asked.stdout)["position"] == 3


def test_the_audit_table_keeps_its_borders_in_80_columns(
    store: dict[str, str], tmp_path: Path
) -> None:
    program = tmp_path / "pay.py"
    memo = "rent for the whole month of december, and the heating"
    program.write_text(f'transfer(payer="alice", payee="bob", amount=12, memo="{memo}")\n')
    assert sluice(store, "run", str(program), "--as", "alice", "--yes").returncode == 0

    table = sluice(store, "audit", "account", "alice", columns=80).stdout.splitlines()[1:]

    assert table
    assert all(len(line) <= 80 for line in table)
    assert all(line[0] in BORDERS and line[-1] in BORDERS for line in table), "\n".join(table)
    assert "december" in "".join(table)


def test_version_prints_the_installed_version() -> None:
    done = subprocess.run([SLUICE, "--version"], capture_output=True, text=True, check=False)

    assert done.returncode == 0
    assert re.fullmatch(r"sluice \d+\.\d+\.\d+\S*\n", done.stdout)
