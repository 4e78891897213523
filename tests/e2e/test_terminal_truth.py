"""What a terminal says is what happened: a read shows its result and what the program
printed; each outcome names itself (committed, a read, not confirmed and still pending,
rejected for good, already committed, already rejected); the default answer decides
nothing. Real `sluice` processes on a real SQLite file."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.bootstrap import Sluice
from tests.e2e.demo_stores import DemoStores
from tests.served import free_port

SLUICE = str(Path(sys.executable).parent / "sluice")
PAY_BOB = 'transfer(payer="alice", payee="bob", amount=4)\n'


@pytest.fixture
def store(tmp_path: Path, demo_stores: DemoStores) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    env |= {"SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}", "COLUMNS": "200"}
    demo_stores.copy(env)
    return env


def sluice(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, *args], env=env, input=stdin, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip


def flat(text: str) -> str:
    return " ".join(text.split())


def status_of(env: dict[str, str], run_id: str) -> str:
    with Sluice(env["SLUICE_DATABASE_URL"]) as system:
        admin = system.gateway.authenticate("sk-demo-admin")
        return system.gateway.proposal(admin, run_id).status


def agent_proposes(env: dict[str, str]) -> str:
    with Sluice(env["SLUICE_DATABASE_URL"]) as system:
        agent = system.gateway.authenticate("sk-agent-demo-alice", "mcp")
        return system.gateway.propose(agent, "python", PAY_BOB).id


def test_sluice_run_of_a_read_shows_its_result_and_what_it_printed(
    store: dict[str, str], tmp_path: Path
) -> None:
    program = tmp_path / "read.py"
    program.write_text('print("looking at alice")\nget_balance(account="alice")\n')

    done = sluice(store, "run", str(program), "--as", "alice")

    assert done.returncode == 0, done.stderr
    said = flat(done.stdout)
    assert "Done: a read; nothing to write." in said
    assert 'Result: "100.00"' in said
    assert "Printed by the program (its own text, not Sluice's)" in said
    assert "looking at alice" in said
    assert "Committed: nothing to write" not in said


def test_sluice_shell_shows_a_reads_result_and_how_to_read_a_sheet(store: dict[str, str]) -> None:
    typed = 'print("hi")\nget_balance(account="alice")\n\nhelp transfer\n\nquit\n'

    done = sluice(store, "shell", "--as", "alice", stdin=typed)

    said = flat(done.stdout)
    assert done.returncode == 0, done.stderr
    assert 'Result: "100.00"' in said and "│ hi" in done.stdout
    # A person is told how to read a sheet, not a model's tool name.
    assert "find_actions" not in said
    assert "`help NAME` shows a use case's arguments" in said
    assert "def transfer(*, payer: str, payee: str" in done.stdout


def test_the_default_answer_keeps_the_proposal_pending_and_says_so(
    store: dict[str, str], tmp_path: Path
) -> None:
    program = tmp_path / "pay.py"
    program.write_text(PAY_BOB)

    done = sluice(store, "run", str(program), "--as", "alice", "--json", stdin="\n")

    outcome = json.loads(done.stdout)
    assert done.returncode == 1
    assert outcome["status"] == "declined"
    assert status_of(store, outcome["run_id"]) == "pending"
    assert "[n] not now (it stays pending), [r] reject for good [n]" in flat(done.stderr)
    said = flat(sluice(store, "run", str(program), "--as", "alice", stdin="n\n").stdout)
    assert "Not confirmed: nothing was written." in said
    assert "still waits for a decision until" in said and "sluice confirm" in said


def test_r_rejects_for_good_and_says_so(store: dict[str, str]) -> None:
    run_id = agent_proposes(store)

    done = sluice(store, "confirm", run_id[:8], "--as", "alice", stdin="r\n")

    assert done.returncode == 1
    assert status_of(store, run_id) == "rejected"
    assert f"Rejected for good: proposal {run_id} can no longer be confirmed; nothing was " in (
        flat(done.stdout)
    )


def test_confirming_an_ended_proposal_says_it_had_ended(store: dict[str, str]) -> None:
    rejected, committed = agent_proposes(store), agent_proposes(store)
    assert sluice(store, "confirm", rejected, "--as", "alice", stdin="r\n").returncode == 1
    assert sluice(store, "confirm", committed, "--as", "alice", "--yes").returncode == 0

    on_rejected = sluice(store, "confirm", rejected, "--as", "alice")
    again = sluice(store, "confirm", committed, "--as", "alice")

    assert on_rejected.returncode == 1
    assert f"Rejected: proposal {rejected} was rejected by alice at " in flat(on_rejected.stdout)
    assert "Failed" not in on_rejected.stdout and "None" not in on_rejected.stdout
    assert again.returncode == 0
    said = flat(again.stdout)
    assert f"Already committed: proposal {committed} was confirmed by alice at " in said
    assert "its 2 events appended then; nothing more was written." in said


def test_replay_of_a_small_log_shows_no_rate_it_cannot_measure(store: dict[str, str]) -> None:
    done = sluice(store, "replay")

    assert done.returncode == 0, done.stderr
    assert "position" in done.stderr
    assert "events/s" not in done.stderr


def test_serving_on_a_taken_port_says_so_before_any_serving_line(store: dict[str, str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        done = sluice(store, "serve", "--port", str(port))

    assert done.returncode == 3
    assert "Serving" not in done.stdout
    assert f"port {port} on 127.0.0.1 is taken" in flat(done.stderr)
    assert f"--port {port + 1}" in done.stderr and "Errno" not in done.stderr


def test_serve_demo_says_how_to_reach_the_cli(store: dict[str, str]) -> None:
    env = {**store, "PATH": "/usr/bin:/bin"}  # the environment's bin not on PATH
    process = subprocess.Popen(
        [SLUICE, "serve", "--demo", "--port", str(free_port())],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        lines = []
        for line in process.stdout:
            lines.append(line)
            if line.startswith("Serving "):
                break
    finally:
        process.terminate()
        process.wait(timeout=30)
    said = "".join(lines)
    activate = Path(SLUICE).parent / "activate"
    assert f"source {os.path.relpath(activate)}    # puts `sluice` on your PATH" in said
    assert "sluice proposals --as alice" in said
