"""`sluice mcp`: stdout is the protocol's alone; the log, the MCP SDK's records included, is
JSON lines on stderr when asked."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.mcp.support import INITIALIZE, SLUICE, Target

MESSAGES = [
    INITIALIZE,
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def test_stdout_holds_the_protocol_and_stderr_json_log_lines(
    stdio_target: Target, tmp_path: Path
) -> None:
    env = {
        **stdio_target.env, "SLUICE_API_KEY": "sk-demo-alice", "SLUICE_LOG_LEVEL": "DEBUG",
        "SLUICE_LOG_FORMAT": "json",
    }  # fmt: skip
    with (tmp_path / "stderr").open("w+") as errors:
        server = subprocess.Popen(
            [SLUICE, "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=errors, text=True,
        )  # fmt: skip
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write("".join(json.dumps(m) + "\n" for m in MESSAGES))
        server.stdin.flush()
        # Stdin stays open until the last answer: at its end the server stops serving.
        answers = [json.loads(server.stdout.readline()) for _ in range(2)]
        server.stdin.close()
        assert server.wait(timeout=60) == 0
        errors.seek(0)
        said = errors.read()

    assert [a["id"] for a in answers] == [1, 2]
    assert all(a["jsonrpc"] == "2.0" and "result" in a for a in answers)
    assert server.stdout.read() == ""  # nothing but the protocol on stdout
    logged = [json.loads(line) for line in said.splitlines()]
    assert all({"time", "level", "logger", "message"} <= e.keys() for e in logged)
    # At DEBUG the SDK has something to say; it says it in Sluice's format, on stderr.
    assert any(e["logger"].startswith("mcp.") for e in logged), said
