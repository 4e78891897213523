"""The `sluice` command as a user runs it: a real process on a real SQLite file."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.demo_stores import DemoStores

SLUICE = str(Path(sys.executable).parent / "sluice")
SNAPSHOTS = Path(__file__).parent.parent / "snapshots"


@pytest.fixture
def store(tmp_path: Path, demo_stores: DemoStores) -> dict[str, str]:
    """A SQLite file of its own, with the demo ledger seeded by `sluice demo`."""
    env = {**os.environ, "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}"}
    seeded = demo_stores.copy(env)
    assert "opened alice, bob, carla" in seeded
    assert "sk-demo-alice" in seeded
    return env


def sluice(
    env: dict[str, str], *args: str, stdin: str = "", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )


def run_json(
    env: dict[str, str], program: Path, *flags: str, stdin: str = "", who: str = "alice"
) -> tuple[int, Any]:
    done = sluice(env, "run", str(program), "--as", who, "--json", *flags, stdin=stdin)
    return done.returncode, json.loads(done.stdout)


def balances(env: dict[str, str], tmp_path: Path) -> Any:
    program = tmp_path / "balances.py"
    program.write_text('{a["account"]: a["balance"] for a in list_accounts()}\n')
    code, outcome = run_json(env, program, who="auditor")
    assert code == 0, outcome
    return outcome["result"]


def test_directory_and_actions_print_the_catalog(store: dict[str, str]) -> None:
    directory = sluice(store, "directory")
    actions = sluice(store, "actions", "transfer", "deposit")

    assert directory.returncode == 0
    assert directory.stdout == (SNAPSHOTS / "directory.txt").read_text()
    assert actions.returncode == 0
    assert [sheet["name"] for sheet in json.loads(actions.stdout)] == ["transfer", "deposit"]


def test_actions_with_an_unknown_name_is_a_usage_error(store: dict[str, str]) -> None:
    done = sluice(store, "actions", "transfer", "frobnicate")

    assert done.returncode == 2
    assert done.stdout == ""
    assert "no use case frobnicate" in done.stderr


def test_demo_twice_changes_nothing_the_second_time(store: dict[str, str], tmp_path: Path) -> None:
    again = sluice(store, "demo")

    assert again.returncode == 0
    assert "already" in again.stdout
    assert balances(store, tmp_path) == {"alice": "100.00", "bob": "0.00", "carla": "0.00"}


def test_run_yes_json_commits_the_seeds_back_and_forth(
    store: dict[str, str], tmp_path: Path
) -> None:
    program = tmp_path / "back_and_forth.py"
    program.write_text(
        'transfer(payer="alice", payee="bob", amount=10)\n'
        'transfer(payer="bob", payee="carla", amount=10)\n'
        'transfer(payer="carla", payee="bob", amount=10)\n'
    )

    code, outcome = run_json(store, program, "--yes", who="teller")

    assert code == 0
    assert set(outcome) == {"status", "changed", "events", "result", "error"}
    assert (outcome["status"], outcome["changed"], outcome["error"]) == ("committed", 6, None)
    assert outcome["result"]["payer_balance"] == "0.00"
    assert balances(store, tmp_path) == {"alice": "90.00", "bob": "10.00", "carla": "0.00"}


def test_run_of_the_seeds_loop_to_dan_fails_and_writes_nothing(
    store: dict[str, str], tmp_path: Path
) -> None:
    program = tmp_path / "friends.py"
    program.write_text(
        'for friend in ["bob", "carla", "dan"]:\n'
        '    transfer(payer="alice", payee=friend, amount=20)\n'
    )

    code, outcome = run_json(store, program, "--yes")

    assert code == 1
    assert outcome == {
        "status": "failed",
        "changed": "nothing",
        "events": [],
        "result": None,
        "error": "transfer: no account dan (line 2, column 5)",
        "refusal": "account-not-found",
    }
    assert balances(store, tmp_path) == {"alice": "100.00", "bob": "0.00", "carla": "0.00"}


def test_run_asks_before_committing_and_a_no_writes_nothing(
    store: dict[str, str], tmp_path: Path
) -> None:
    program = tmp_path / "pay_bob.py"
    program.write_text('transfer(payer="alice", payee="bob", amount=25)\n')

    declined_code, declined = run_json(store, program, stdin="n\n")
    eof_code, eof = run_json(store, program, stdin="")
    assert balances(store, tmp_path)["bob"] == "0.00"
    confirmed_code, confirmed = run_json(store, program, stdin="y\n")

    assert (declined_code, declined["status"], declined["changed"]) == (1, "declined", "nothing")
    assert (eof_code, eof["status"]) == (1, "declined")
    assert (confirmed_code, confirmed["status"], confirmed["changed"]) == (0, "committed", 2)
    assert balances(store, tmp_path)["bob"] == "25.00"


def test_run_without_json_shows_the_preview_and_the_outcome(
    store: dict[str, str], tmp_path: Path
) -> None:
    program = tmp_path / "pay_carla.py"
    program.write_text('transfer(payer="alice", payee="carla", amount=7, memo="lunch")\n')

    done = sluice(store, "run", str(program), "--as", "alice", stdin="y\n")

    assert done.returncode == 0
    assert "TransferDebited" in done.stdout
    assert "lunch" in done.stdout
    assert "Committed: 2 events appended." in done.stdout


def test_usage_errors_exit_with_2(store: dict[str, str], tmp_path: Path) -> None:
    program = tmp_path / "p.py"
    program.write_text('get_balance(account="alice")\n')

    missing_file = sluice(store, "run", str(tmp_path / "absent.py"), "--as", "alice")
    missing_as = sluice(store, "run", str(program))
    bad_store = sluice({**store, "SLUICE_DATABASE_URL": "mysql://x/y"}, "directory")

    assert missing_file.returncode == 2
    assert "cannot read program" in missing_file.stderr
    assert missing_as.returncode == 2
    assert "--as" in missing_as.stderr
    assert bad_store.returncode == 2
    assert "unsupported scheme 'mysql'" in bad_store.stderr


def test_a_cap_per_use_case_naming_no_use_case_stops_the_command(store: dict[str, str]) -> None:
    env = {**store, "SLUICE_CAP_MAX_CALLS_PER_USE_CASE": "transfer=3,trasnfer=2"}

    done = sluice(env, "call", "get_balance", "account=alice", "--as", "alice")

    assert done.returncode == 2
    assert done.stdout == ""
    assert " ".join(done.stderr.split()).startswith(  # the console wraps long lines
        "error: SLUICE_CAP_MAX_CALLS_PER_USE_CASE='transfer=3,trasnfer=2': no use case trasnfer "
        "(the use cases: open_account, deposit,"
    )


def test_the_default_store_is_a_sqlite_file_under_var(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SLUICE_DATABASE_URL"}

    done = sluice(env, "demo", cwd=tmp_path)

    assert done.returncode == 0
    assert (tmp_path / "var" / "sluice.db").is_file()


def test_principal_add_prints_a_key_once_that_then_runs_programs(
    store: dict[str, str], tmp_path: Path
) -> None:
    added = sluice(store, "principal", "add", "dana", "--role", "customer", "--owns", "carla")
    again = sluice(store, "principal", "add", "dana", "--role", "customer")
    key = added.stdout.strip()
    program = tmp_path / "read.py"
    program.write_text('get_balance(account="carla")\n')

    done = sluice(store, "run", str(program), "--key", key, "--json")

    assert added.returncode == 0
    assert key.startswith("sk-") and len(key) > 30
    assert (again.returncode, "principal dana already exists" in again.stderr) == (2, True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "0.00"


def test_run_a_plan_and_refuse_an_unknown_key(store: dict[str, str], tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            {
                "steps": [
                    {"tool": "transfer", "args": {"payer": "alice", "payee": "bob", "amount": 5}}
                ]
            }
        )
    )

    done = sluice(store, "run", str(plan), "--as", "alice", "--language", "plan", "--yes", "--json")
    unknown = sluice(store, "run", str(plan), "--key", "sk-nope", "--language", "plan")
    forbidden = sluice(store, "run", str(plan), "--as", "bob", "--language", "plan", "--json")

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["changed"] == 2
    assert (unknown.returncode, "unknown or revoked" in unknown.stderr) == (2, True)
    assert forbidden.returncode == 1
    assert json.loads(forbidden.stdout)["error"] == (
        "transfer: payer alice is not an account of principal bob (step 1)"
    )


def test_call_runs_one_use_case_directly(store: dict[str, str], tmp_path: Path) -> None:
    paid = sluice(
        store, "call", "transfer", "payer=alice", "payee=carla", "amount=2.5", "--as", "alice"
    )
    refused = sluice(store, "call", "get_balance", "account=bob", "--as", "carla")
    malformed = sluice(store, "call", "get_balance", "bob", "--as", "carla")

    assert paid.returncode == 0, paid.stderr
    assert json.loads(paid.stdout)["result"]["payer_balance"] == "97.50"
    assert refused.returncode == 1
    assert json.loads(refused.stdout)["error"] == (
        "get_balance: account bob is not an account of principal carla"
    )
    assert (malformed.returncode, "is not NAME=VALUE" in malformed.stderr) == (2, True)
    assert balances(store, tmp_path)["carla"] == "2.50"


def test_an_unreachable_store_is_one_line_naming_host_and_port(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "SLUICE_DATABASE_URL": f"postgresql://postgres@127.0.0.1:{port}/postgres"}

    done = sluice(env, "demo")

    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"cannot connect to PostgreSQL at 127.0.0.1:{port}" in done.stderr
