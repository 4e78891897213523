"""The operators' commands as processes: replay, audit, events, export."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.postgres import support
from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")


def sluice(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> object:
    with empty_store(request.param, tmp_path) as url:
        environment = {**os.environ, "SLUICE_DATABASE_URL": url}
        assert sluice(environment, "demo").returncode == 0
        program = tmp_path / "pay.py"
        program.write_text('transfer(payer="alice", payee="bob", amount=12, memo="rent")\n')
        paid = sluice(environment, "run", str(program), "--as", "alice", "--yes", "--json")
        assert paid.returncode == 0, paid.stderr
        yield environment


def test_replay_rebuilds_and_finds_the_live_models_equal(env: dict[str, str]) -> None:
    done = sluice(env, "replay", "--from-scratch", "--json")

    assert done.returncode == 0, done.stderr
    assert [(r["projection"], r["equal"]) for r in json.loads(done.stdout)] == [
        ("balances", True),
        ("statement", True),
        ("runs", True),
    ]
    unknown = sluice(env, "replay", "--projection", "gossip")
    assert (unknown.returncode, "no projection gossip" in unknown.stderr) == (2, True)


def test_replay_swap_repairs_a_wrong_live_model_in_place(env: dict[str, str]) -> None:
    assert sluice(env, "audit", "verify").returncode == 0  # the live models are caught up
    corrupt_bob(env["SLUICE_DATABASE_URL"])

    compared = sluice(env, "replay")
    swapped = sluice(env, "replay", "--swap", "--json")
    verified = sluice(env, "audit", "verify")

    assert compared.returncode == 1
    assert "balances: rebuilt to position" in compared.stdout
    assert "DIFFERENT to the live model" in compared.stdout
    assert "1000000.00" in compared.stdout
    assert swapped.returncode == 0, swapped.stdout + swapped.stderr
    balances = json.loads(swapped.stdout)[0]
    assert (balances["projection"], balances["swapped"], balances["equal"]) == (
        "balances",
        True,
        True,
    )
    assert verified.returncode == 0, verified.stdout
    refused = sluice(env, "replay", "--swap", "--to", "3")
    assert (refused.returncode, "leave out --to" in refused.stderr) == (2, True)


def corrupt_bob(url: str) -> None:
    """A wrong balance in the live read model, as a faulty tool would leave it."""
    if url.startswith("sqlite"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
            db.execute(
                "UPDATE rm_documents SET body = json_set(body, '$.balance', '1000000.00') "
                "WHERE projection = 'balances' AND json_extract(body, '$.account') = 'bob'"
            )
    else:
        schema = url.rsplit("schema=", 1)[1]
        with support.admin_connection() as db:
            db.execute(
                f'UPDATE "{schema}".rm_documents '
                "SET body = jsonb_set(body::jsonb, '{balance}', '\"1000000.00\"')::text "
                "WHERE projection = 'balances' AND body::jsonb->>'account' = 'bob'"
            )


def test_audit_commands_answer_in_json(env: dict[str, str]) -> None:
    timeline = json.loads(sluice(env, "audit", "account", "bob", "--json").stdout)
    paid = timeline[-1]
    story = json.loads(sluice(env, "audit", "run", paid["run"]["run_id"], "--json").stdout)
    event = json.loads(sluice(env, "audit", "event", str(paid["position"]), "--json").stdout)
    before = json.loads(
        sluice(env, "audit", "as-of", "bob", "--at", str(paid["position"] - 1), "--json").stdout
    )
    verified = sluice(env, "audit", "verify", "--json")

    assert paid["data"] == {"amount": "12.00", "counterparty": "alice", "memo": "rent"}
    assert (paid["run"]["principal"], paid["run"]["confirmed_by"]) == ("alice", "alice")
    assert story["program"].startswith('transfer(payer="alice"')
    assert event["run"]["run_id"] == story["run_id"]
    assert before["balance"] == "0.00"
    assert verified.returncode == 0, verified.stdout
    assert json.loads(verified.stdout)["ok"] is True
    assert sluice(env, "audit", "account", "nobody").returncode == 1


def test_events_and_export(env: dict[str, str]) -> None:
    lines = sluice(env, "events", "--after", "0").stdout.splitlines()
    later = sluice(env, "events", "--after", "5").stdout.splitlines()
    jsonl = sluice(env, "export", "--format", "jsonl").stdout.splitlines()
    rows = list(csv.DictReader(io.StringIO(sluice(env, "export", "--format", "csv").stdout)))

    records = [json.loads(line) for line in lines]
    assert [r["position"] for r in records] == sorted(r["position"] for r in records)
    assert [json.loads(line)["position"] for line in later] == [
        r["position"] for r in records if r["position"] > 5
    ]
    assert [json.loads(line) for line in jsonl] == records
    assert [int(row["position"]) for row in rows] == [r["position"] for r in records]
    assert json.loads(rows[-1]["data"]) == records[-1]["data"]
    assert sluice(env, "export", "--format", "xml").returncode == 2


def test_events_follow_prints_new_events_as_they_commit(
    env: dict[str, str], tmp_path: Path
) -> None:
    end = json.loads(sluice(env, "events", "--after", "0").stdout.splitlines()[-1])["position"]
    follower = subprocess.Popen(
        [SLUICE, "events", "--after", str(end), "--follow"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    program = tmp_path / "deposit.py"
    program.write_text('deposit(account="carla", amount=3)\n')
    guard = threading.Timer(60, follower.kill)  # a silent follower must not hang the suite
    guard.start()
    try:
        time.sleep(1.0)  # the follower is waiting for news
        assert sluice(env, "run", str(program), "--as", "teller", "--yes").returncode == 0
        assert follower.stdout is not None
        seen: list[dict[str, Any]] = []
        while not seen or seen[-1]["type"] != "Run.Committed":
            seen.append(json.loads(follower.stdout.readline()))
    finally:
        guard.cancel()
        follower.terminate()
        follower.wait(timeout=10)

    assert all(item["position"] > end for item in seen)
    assert [item["type"] for item in seen] == [
        "Run.Proposed",
        "Account.Deposited",
        "Run.Confirmed",
        "Run.Committed",
    ]
    assert seen[1]["account"] == "carla"


def test_audit_refusals_name_the_thing_and_the_reason(env: dict[str, str]) -> None:
    no_zone = sluice(env, "audit", "as-of", "bob", "--at", "2026-11-29T10:00:00")
    not_a_point = sluice(env, "audit", "as-of", "bob", "--at", "yesterday")
    no_run = sluice(env, "audit", "run", "not-a-run")
    no_event = sluice(env, "audit", "event", "999999")

    assert (no_zone.returncode, "give the time zone" in no_zone.stderr) == (2, True)
    assert (not_a_point.returncode, "a log position (a number)" in not_a_point.stderr) == (2, True)
    assert (no_run.returncode, "no run not-a-run" in no_run.stderr) == (1, True)
    assert (no_event.returncode, "no event at position 999999" in no_event.stderr) == (1, True)
