"""A served gateway whose sandbox workers all stay busy past SLUICE_SANDBOX_WAIT_SECONDS answers
503 with Retry-After (HTTP) or a tool error naming the reason (MCP), and records nothing: the
program did not run, so it did not fail."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.mcp.support import SLUICE, Target, connect, text
from tests.served import serving

ALICE = {"Authorization": "Bearer sk-demo-alice"}
# Another principal than the runaway's: alice may run one program at once, and it runs.
BOB = {"Authorization": "Bearer sk-demo-bob"}
BOB_AGENT_KEY = "sk-agent-demo-bob"
ADMIN = {"Authorization": "Bearer sk-demo-admin"}
PAY_ALICE = 'transfer(payer="bob", payee="alice", amount=4, memo="rent")\n'
RUNAWAY = "while True:\n    pass\n"


@pytest.fixture
def one_worker(tmp_path: Path) -> Iterator[Target]:
    env = {
        **os.environ,
        "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'busy.db'}",
        "SLUICE_SANDBOX_WORKERS": "1",
        "SLUICE_SANDBOX_WAIT_SECONDS": "0.5",
        # The runaway keeps the only worker busy this long: time for the requests below.
        "SLUICE_CAP_MAX_RUN_SECONDS": "5",
        "SLUICE_CAP_PROGRAMS_PER_MINUTE": "1000",
    }
    with serving([SLUICE, "serve", "--demo"], env) as base:
        yield Target("http", env, base)


def _log_after(base: str, after: int) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    while True:
        page = httpx.get(
            f"{base}/v1/events", params={"after": after, "limit": 1000}, headers=ADMIN, timeout=30
        )
        assert page.status_code == 200, page.text
        if not page.json():
            return events
        events += page.json()
        after = events[-1]["position"]


@pytest.mark.asyncio
async def test_a_busy_sandbox_is_503_over_http_and_a_tool_error_over_mcp(
    one_worker: Target,
) -> None:
    base = one_worker.base
    assert base is not None
    before = _log_after(base, 0)
    head = before[-1]["position"]
    answers: list[httpx.Response] = []

    def runaway() -> None:
        answers.append(
            httpx.post(
                f"{base}/v1/programs",
                json={"language": "python", "source": RUNAWAY},
                headers=ALICE,
                timeout=60,
            )
        )

    async with connect(one_worker, BOB_AGENT_KEY) as client:
        busy = threading.Thread(target=runaway)
        busy.start()
        time.sleep(1.5)  # the runaway has the only worker for 5 s
        try:
            started = time.monotonic()
            refused = httpx.post(
                f"{base}/v1/programs",
                json={"language": "python", "source": PAY_ALICE},
                headers=BOB,
                timeout=30,
            )
            answered_in = time.monotonic() - started
            tool = await client.call_tool(
                "propose_program", {"language": "python", "source": PAY_ALICE}
            )
        finally:
            busy.join(timeout=60)

    assert refused.status_code == 503, refused.text
    assert refused.headers["retry-after"] == "1"
    assert refused.headers["content-type"].startswith("application/problem+json")
    problem = refused.json()
    assert problem["type"] == "urn:sluice:problem:unavailable"
    assert problem["detail"].startswith("the sandbox is busy: no worker came free within 0.5 s")
    assert "run_id" not in problem
    assert answered_in < 3.5  # the 0.5 s wait, not the runaway's 5 s

    assert tool.is_error, text(tool)
    assert "unavailable: the sandbox is busy: no worker came free within 0.5 s" in text(tool)

    # The runaway failed on its own time cap; its run is the only thing written meanwhile.
    (timed_out,) = answers
    assert timed_out.status_code == 422, timed_out.text
    assert timed_out.json()["detail"] == "time limit: the program ran longer than 5 s"
    written = _log_after(base, head)
    assert {e["aggregate_id"] for e in written} == {timed_out.json()["run_id"]}
