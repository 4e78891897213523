"""Over MCP, a principal past `programs_at_once` gets a tool error naming the cap (issue 14):
the program did not run, nothing was written, and the client may retry."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from tests.mcp.support import AGENT_KEY, HUMAN_KEY, Target, connect, text

RUNAWAY = "while True:\n    pass\n"
ALICE_BALANCE = 'get_balance(account="alice")\n'


@pytest.fixture(params=["http", pytest.param("postgres", marks=pytest.mark.postgres)])
def served(request: pytest.FixtureRequest) -> Target:
    """A served gateway (the counting is per process, so not `sluice mcp` on stdio)."""
    chosen: Target = request.getfixturevalue(f"{request.param}_target")
    return chosen


@pytest.mark.asyncio
async def test_past_programs_at_once_a_tool_call_is_a_tool_error_naming_the_cap(
    served: Target,
) -> None:
    base = served.base
    assert base is not None
    answers: list[httpx.Response] = []

    def runaway() -> None:
        answers.append(
            httpx.post(
                f"{base}/v1/programs",
                json={"language": "python", "source": RUNAWAY},
                headers={"Authorization": f"Bearer {HUMAN_KEY}"},
                timeout=60,
            )
        )

    async with connect(served, AGENT_KEY) as client:
        busy = threading.Thread(target=runaway)
        busy.start()
        try:
            time.sleep(1)  # alice's runaway holds her one program at once for 2 s
            refused = await client.call_tool(
                "propose_program", {"language": "python", "source": ALICE_BALANCE}
            )
        finally:
            busy.join(timeout=60)
        # Once her runaway has ended, the same call runs.
        after = await client.call_tool(
            "propose_program", {"language": "python", "source": ALICE_BALANCE}
        )

    assert refused.is_error, text(refused)
    assert (
        "rate-limited: cap programs_at_once: principal alice may run 1 program at once and 1 "
        "is running; nothing was written; retry in 2 s"
    ) in text(refused)
    (timed_out,) = answers
    assert timed_out.json()["detail"] == "time limit: the program ran longer than 2 s"
    assert not after.is_error, text(after)
