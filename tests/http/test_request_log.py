"""One access line per request, in plain text unless JSON is asked for, each naming the
request's id; the answer carries the id back (header and problem body); `--log-level` and
`--log-format` on the serving commands, refused by name when they name nothing."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.served import served_process

SLUICE = str(Path(sys.executable).parent / "sluice")
ALICE = {"Authorization": "Bearer sk-demo-alice"}
PLAIN_LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO |WARNING|ERROR) ")


def environment(url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_LOG_")}
    return {**env, "SLUICE_DATABASE_URL": url, **extra}


def eventually(check: Callable[[], bool], seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def access_lines(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if " sluice.access " in line]


def test_by_default_each_request_is_one_plain_access_line_naming_its_id(tmp_path: Path) -> None:
    log = tmp_path / "stderr.log"
    env = environment(f"sqlite:///{tmp_path / 'sluice.db'}")
    with served_process([SLUICE, "serve", "--demo"], env, errors=log) as (base, _):
        mine = httpx.get(f"{base}/v1/accounts/alice", headers=ALICE, timeout=30)
        refused = httpx.get(f"{base}/v1/accounts/bob", headers=ALICE, timeout=30)

        def accounts() -> list[str]:
            # The start's own /health polls are logged too, by a writer thread: maybe later.
            return [line for line in access_lines(log) if " GET /v1/accounts/" in line]

        assert eventually(lambda: len(accounts()) == 2), log.read_text()
        lines = accounts()

    assert mine.status_code == 200 and refused.status_code == 403
    assert all(PLAIN_LINE.match(line) for line in log.read_text().splitlines()), log.read_text()
    for answer, line in zip((mine, refused), lines, strict=True):
        request_id = answer.headers["x-request-id"]
        assert re.fullmatch(r"[0-9a-f]{32}", request_id)
        assert f"request_id={request_id}" in line
        assert "route=/v1/accounts/{account}" in line
        assert f"status={answer.status_code}" in line and "duration_ms=" in line
    assert " INFO  sluice.access GET /v1/accounts/bob 403 " in lines[1]
    # The refusal names the request too: what a user quotes is what the operator greps for.
    assert refused.json()["request_id"] == refused.headers["x-request-id"]
    assert "sk-demo-alice" not in log.read_text()


def test_a_sane_request_id_from_the_client_is_kept_and_any_other_replaced(
    tmp_path: Path,
) -> None:
    log = tmp_path / "stderr.log"
    env = environment(f"sqlite:///{tmp_path / 'sluice.db'}", SLUICE_LOG_FORMAT="json")
    with served_process([SLUICE, "serve", "--demo"], env, errors=log) as (base, _):
        kept = httpx.get(f"{base}/nowhere", headers={"X-Request-ID": "lb-7f3a.22:9"}, timeout=30)
        hostile = "x" * 65
        replaced = httpx.get(f"{base}/nowhere", headers={"X-Request-ID": hostile}, timeout=30)
        assert eventually(lambda: log.read_text().count('"path": "/nowhere"') == 2)
        logged = [json.loads(line) for line in log.read_text().splitlines()]

    assert kept.headers["x-request-id"] == "lb-7f3a.22:9" == kept.json()["request_id"]
    assert replaced.headers["x-request-id"] != hostile
    assert re.fullmatch(r"[0-9a-f]{32}", replaced.headers["x-request-id"])
    nowhere = [e for e in logged if e["logger"] == "sluice.access" and e["path"] == "/nowhere"]
    assert [(e["request_id"], e["status"], e["route"]) for e in nowhere] == [
        ("lb-7f3a.22:9", 404, "(unmatched)"),
        (replaced.headers["x-request-id"], 404, "(unmatched)"),
    ]


def test_at_log_level_warning_there_is_no_access_line(tmp_path: Path) -> None:
    log = tmp_path / "stderr.log"
    env = environment(f"sqlite:///{tmp_path / 'sluice.db'}", SLUICE_LOG_LEVEL="debug")
    argv = [SLUICE, "serve", "--demo", "--log-level", "warning"]  # the option wins
    with served_process(argv, env, errors=log) as (base, _):
        assert httpx.get(f"{base}/v1/accounts/alice", headers=ALICE, timeout=30).is_success
    assert access_lines(log) == []
    assert " DEBUG " not in log.read_text()


@pytest.mark.parametrize("command", ["serve", "project", "mcp"])
@pytest.mark.parametrize(
    ("option", "said"),
    [
        (["--log-level", "loud"], "--log-level='loud' is not a log level"),
        (["--log-format", "xml"], "--log-format='xml' is not a log format; use plain or json"),
    ],
)
def test_a_bad_log_option_is_refused_at_start_naming_it(
    command: str, option: list[str], said: str, tmp_path: Path
) -> None:
    path = tmp_path / "sluice.db"
    env = environment(f"sqlite:///{path}", SLUICE_API_KEY="sk-demo-alice")
    done = subprocess.run(
        [SLUICE, command, *option], env=env, capture_output=True, text=True,
        stdin=subprocess.DEVNULL, timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert said in " ".join(done.stderr.split())
    assert done.stdout == ""
    assert not path.exists()  # nothing was opened


def test_a_bad_log_format_variable_is_refused_naming_it(tmp_path: Path) -> None:
    env = environment(f"sqlite:///{tmp_path / 'sluice.db'}", SLUICE_LOG_FORMAT="yaml")
    done = subprocess.run(
        [SLUICE, "serve"], env=env, capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 2
    assert "SLUICE_LOG_FORMAT='yaml' is not a log format" in " ".join(done.stderr.split())
