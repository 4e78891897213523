"""`sluice mcp`: stdout is the protocol's alone; the log, the MCP SDK's records included, is
JSON lines on stderr."""

from __future__ import annotations

import json
import subprocess

from tests.mcp.support import INITIALIZE, SLUICE, Target

MESSAGES = [
    INITIALIZE,
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def test_stdout_holds_the_protocol_and_stderr_json_log_lines(stdio_target: Target) -> None:
    env = {**stdio_target.env, "SLUICE_API_KEY": "sk-demo-alice", "SLUICE_LOG_LEVEL": "DEBUG"}
    done = subprocess.run(
        [SLUICE, "mcp"], env=env, input="".join(json.dumps(m) + "\n" for m in MESSAGES),
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr

    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2]
    assert all(a["jsonrpc"] == "2.0" and "result" in a for a in answers)
    logged = [json.loads(line) for line in done.stderr.splitlines()]
    assert all({"time", "level", "logger", "message"} <= e.keys() for e in logged)
    # At DEBUG the SDK has something to say; it says it in Sluice's format, on stderr.
    assert any(e["logger"].startswith("mcp.") for e in logged), done.stderr
