"""The served gateway's log is Sluice's own: asked for JSON, one JSON object per line on
stderr, whatever a library sets up. A 500 is one line, its short traceback escaped inside it;
uvicorn's lines and the access lines are JSON lines too; a bad SLUICE_LOG_LEVEL is refused
before anything starts.

A 500 here is real: alice's row in the balances read model is made one the server cannot
read (as a bad manual edit or a broken migration would leave it), so her reads fail."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from gateway.logs.json_lines import MAX_FRAMES
from tests.postgres import support
from tests.served import served_process
from tests.stores import postgres_url

SLUICE = str(Path(sys.executable).parent / "sluice")
ALICE = {"Authorization": "Bearer sk-demo-alice"}
# What a rich handler draws around a traceback.
BOX_DRAWING = "╭╮╰╯│─━┃"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[str, Callable[[], None]]]:
    """A store's URL, and how to spoil alice's balance row in it."""
    if request.param == "sqlite":
        path = tmp_path / "sluice.db"

        def spoil_sqlite() -> None:
            with sqlite3.connect(path) as db:
                db.execute(
                    "UPDATE rm_documents SET body = json_set(body, '$.balance', 'x') "
                    "WHERE projection = 'balances' AND json_extract(body, '$.account') = 'alice'"
                )

        yield f"sqlite:///{path}", spoil_sqlite
        return
    schema = request.getfixturevalue("schema")

    def spoil_postgres() -> None:
        with support.admin_connection() as admin:
            admin.execute(
                f'UPDATE "{schema}".rm_documents '
                "SET body = jsonb_set(body::jsonb, '{balance}', '\"x\"')::text "
                "WHERE projection = 'balances' AND body::jsonb->>'account' = 'alice'"
            )

    yield postgres_url(schema), spoil_postgres


def environment(url: str, **extra: str) -> dict[str, str]:
    """The server's environment: JSON lines asked for, and errors only unless `extra` says."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_LOG_")}
    return {
        **env, "SLUICE_DATABASE_URL": url, "SLUICE_LOG_FORMAT": "json",
        "SLUICE_LOG_LEVEL": "WARNING", **extra,
    }  # fmt: skip


def entries(text: str) -> list[dict[str, Any]]:
    """Each line of the log as the JSON object it must be."""
    parsed = []
    for line in text.splitlines():
        entry = json.loads(line)
        assert isinstance(entry, dict), line
        assert {"time", "level", "logger", "message"} <= entry.keys(), line
        parsed.append(entry)
    return parsed


def eventually(check: Callable[[], bool], seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_500_is_one_json_line_on_the_log_and_nothing_else(
    store: tuple[str, Callable[[], None]], tmp_path: Path
) -> None:
    url, spoil = store
    log = tmp_path / "stderr.log"
    with served_process([SLUICE, "serve", "--demo"], environment(url), errors=log) as (base, _):
        assert httpx.get(f"{base}/v1/accounts", headers=ALICE, timeout=30).status_code == 200
        spoil()
        failed = httpx.get(f"{base}/v1/accounts", headers=ALICE, timeout=30)
        assert failed.status_code == 500, failed.text
        assert failed.json()["type"] == "urn:sluice:problem:internal"
        assert "Traceback" not in failed.text  # the details are the log's, not the client's
        # The log's own thread writes the line: wait for it, then stop the server.
        assert eventually(lambda: "sluice.http" in log.read_text()), "no line for the 500"
    text = log.read_text()

    assert not any(char in text for char in BOX_DRAWING), text
    assert text.isascii()
    (entry,) = entries(text)  # exactly one line, and it is JSON: no second record by uvicorn
    assert (entry["level"], entry["logger"]) == ("ERROR", "sluice.http")
    assert entry["message"] == "unexpected error on GET /v1/accounts"
    assert (entry["method"], entry["path"]) == ("GET", "/v1/accounts")
    assert entry["traceback"].startswith("Traceback (most recent call last):\n")
    assert entry["traceback"].rstrip().endswith(f"{entry['error_type']}: {entry['error']}")
    assert "read_side.py" in entry["traceback"]  # the read that failed
    # The line names the request: the id the answer carries in its header and its problem.
    assert entry["request_id"] == failed.headers["x-request-id"] == failed.json()["request_id"]
    # The innermost frames (the read that failed among them), not 30 frames of the server's.
    assert entry["traceback"].count('  File "') <= MAX_FRAMES
    assert "outer frame(s) not shown" in entry["traceback"]


def test_at_info_uvicorns_own_lines_and_sluices_access_lines_are_json_lines(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'sluice.db'}"
    log = tmp_path / "stderr.log"
    env = environment(url, SLUICE_LOG_LEVEL="info")  # any case
    with served_process([SLUICE, "serve"], env, errors=log) as (base, _):
        assert httpx.get(f"{base}/health", timeout=30).status_code == 200
    # Stopped by SIGTERM: uvicorn's last lines are written before the process ends.
    logged = entries(log.read_text())

    said = [(e["logger"], e["message"]) for e in logged]
    assert ("uvicorn.error", "Application startup complete.") in said
    assert said[-1][0] == "uvicorn.error" and said[-1][1].startswith("Finished server process")
    access = [e for e in logged if e["logger"] == "sluice.access"]
    assert access, said
    assert {(e["method"], e["route"], e["status"]) for e in access} == {("GET", "/health", 200)}
    assert all(len(e["request_id"]) == 32 and e["duration_ms"] >= 0 for e in access)
    assert not any(e["logger"] == "uvicorn.access" for e in logged)  # one line per request


@pytest.mark.parametrize("command", ["serve", "project", "mcp"])
def test_a_bad_log_level_is_refused_at_start_naming_the_variable(
    command: str, tmp_path: Path
) -> None:
    path = tmp_path / "sluice.db"
    env = environment(f"sqlite:///{path}", SLUICE_LOG_LEVEL="loud", SLUICE_API_KEY="sk-demo-alice")
    done = subprocess.run(
        [SLUICE, command], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
        timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    said = " ".join(done.stderr.split())
    assert "SLUICE_LOG_LEVEL='loud' is not a log level" in said
    assert "DEBUG, INFO, WARNING, ERROR, CRITICAL" in said
    assert done.stdout == ""
    assert not path.exists()  # nothing was opened, nothing written
