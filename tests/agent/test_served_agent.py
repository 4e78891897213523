"""The agent's protocol as a user meets it: a real `sluice serve` process, its model the fake
server served like llama.cpp (the reply bound to its schema from the first token, cut off
at `max_tokens`), reached over HTTP; and its settings refused at start when malformed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.agent import fake_llm as llm
from tests.agent.fake_llm import FakeLLM
from tests.served import serving

SLUICE = str(Path(sys.executable).parent / "sluice")
ALICE = {"Authorization": "Bearer sk-demo-alice"}
PAY_BOB = 'transfer(payer="alice", payee="bob", amount=10)'


@pytest.fixture(scope="module")
def model() -> Iterator[FakeLLM]:
    fake = FakeLLM(enforce_schema=True)
    yield fake
    fake.close()


def settings(fake: FakeLLM, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    return (
        env
        | {
            "SLUICE_LLM_MODEL": "fake-model",
            "SLUICE_LLM_BASE_URL": fake.url,
            "SLUICE_LLM_API_KEY": "sk-test",
            "SLUICE_LLM_TIMEOUT_SECONDS": "5",
            "SLUICE_CAP_PROGRAMS_PER_MINUTE": "1000",
        }
        | extra
    )


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, model: FakeLLM) -> Iterator[str]:
    path = tmp_path_factory.mktemp("served") / "agent.db"
    env = settings(model, SLUICE_DATABASE_URL=f"sqlite:///{path}", SLUICE_LLM_MAX_TOKENS="200")
    with serving([SLUICE, "serve", "--demo"], env) as base:
        yield base


@pytest.fixture(scope="module")
def served_text_mode(tmp_path_factory: pytest.TempPathFactory, model: FakeLLM) -> Iterator[str]:
    path = tmp_path_factory.mktemp("served-text") / "agent.db"
    env = settings(
        model, SLUICE_DATABASE_URL=f"sqlite:///{path}", SLUICE_LLM_STRUCTURED_OUTPUT="text"
    )
    with serving([SLUICE, "serve", "--demo"], env) as base:
        yield base


@pytest.fixture(scope="module")
def served_directory(tmp_path_factory: pytest.TempPathFactory, model: FakeLLM) -> Iterator[str]:
    """Served with the directory catalog: the planner reads sheets on demand."""
    path = tmp_path_factory.mktemp("served-directory") / "agent.db"
    env = settings(model, SLUICE_DATABASE_URL=f"sqlite:///{path}", SLUICE_LLM_CATALOG="directory")
    with serving([SLUICE, "serve", "--demo"], env) as base:
        yield base


def say(base: str, text: str, conversation_id: str | None = None) -> httpx.Response:
    body: dict[str, Any] = {"text": text, "conversation_id": conversation_id}
    return httpx.post(f"{base}/v1/agent/messages", headers=ALICE, json=body, timeout=30)


@pytest.fixture
def fake(model: FakeLLM) -> Iterator[FakeLLM]:
    """The module's fake model, checked after each test."""
    model.requests.clear()
    yield model
    left, model.script = list(model.script), deque()
    said = (model.unscripted, model.impossible)
    model.unscripted, model.impossible = 0, []
    assert said == (0, []), "the agent asked more often than scripted, or the impossible"
    assert not left, "the agent asked the model less often than the test scripted"


def test_a_reply_cut_off_twice_is_answered_with_a_refusal_the_conversation_keeps(
    served: str, fake: FakeLLM
) -> None:
    endless = llm.endless('{"kind": "program", "language": "python", "source": "total = 0\\n')
    fake.push(endless, endless)

    refused = say(served, "Pay bob 10")

    assert refused.status_code == 200, refused.text
    turn = refused.json()
    assert turn["kind"] == "refused"
    (error,) = turn["errors"]
    assert "cut off at the bound of 200 tokens (SLUICE_LLM_MAX_TOKENS)" in error
    assert error.endswith("nothing was changed: ask again, perhaps in other words")
    assert [r["max_tokens"] for r in fake.requests] == [200, 200]

    fake.push(llm.question("How much should bob get?"))
    asked = say(served, "Pay bob", turn["conversation_id"]).json()
    kept = httpx.get(
        f"{served}/v1/agent/conversations/{turn['conversation_id']}", headers=ALICE, timeout=30
    ).json()

    assert asked["turn"] == 2
    assert [(t["request"], t["kind"]) for t in kept["turns"]] == [
        ("Pay bob 10", "refused"),
        ("Pay bob", "question"),
    ]


def test_at_the_defaults_the_planner_of_the_bank_gets_the_stubs_and_writes_in_one_call(
    served: str, fake: FakeLLM
) -> None:
    """No SLUICE_LLM_CATALOG: the bank's stubs fit the budget, so a small local model gets
    the form it passes with (26 of 27 scenarios, not the directory's 8), in one call."""
    fake.push(llm.program(PAY_BOB))

    turn = say(served, "Pay bob 10").json()

    assert turn["kind"] == "program", turn["errors"]
    (request,) = fake.requests
    system = request["messages"][0]["content"]
    assert "def transfer(*, payer: str, payee: str" in system
    assert "find_actions" not in system


def test_sheets_are_read_from_a_server_that_binds_the_reply_to_its_schema(
    served_directory: str, fake: FakeLLM
) -> None:
    reads_first = llm.wants_sheets(["transfer"], llm.program(PAY_BOB))
    fake.push(reads_first, reads_first)

    turn = say(served_directory, "Pay bob 10").json()

    assert turn["kind"] == "program", turn["errors"]
    assert turn["program"]["source"] == PAY_BOB
    assert turn["proposal"]["status"] == "pending"
    assert '"name":"transfer"' in fake.requests[1]["messages"][-1]["content"]


def test_a_question_holding_a_program_is_repaired_not_taken_as_a_question(
    served_text_mode: str, fake: FakeLLM
) -> None:
    # In text mode nothing binds the reply: a server enforcing the schema cannot write this.
    both = llm.planner_reply("question", text="Shall I?", language="python", source=PAY_BOB)
    fake.push(llm.content(both), llm.program(PAY_BOB))

    turn = say(served_text_mode, "Pay bob 10").json()

    assert turn["kind"] == "program"
    assert turn["proposal"]["status"] == "pending"


def test_in_text_mode_a_program_without_its_null_keys_is_proposed(
    served_text_mode: str, fake: FakeLLM
) -> None:
    fake.push(llm.content({"kind": "program", "language": "python", "source": PAY_BOB}))

    answered = say(served_text_mode, "Pay bob 10")

    assert answered.status_code == 200, answered.text
    assert answered.json()["proposal"]["status"] == "pending"
    assert "response_format" not in fake.requests[0]


@pytest.mark.parametrize("command", ["serve", "chat"])
@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("SLUICE_LLM_MAX_TOKENS", "lots", "SLUICE_LLM_MAX_TOKENS='lots' is not a whole number"),
        ("SLUICE_LLM_MAX_TOKENS", "0", "SLUICE_LLM_MAX_TOKENS='0' is not a whole number of at"),
        ("SLUICE_LLM_MAX_RETRIES", "-1", "SLUICE_LLM_MAX_RETRIES='-1' is not a whole number"),
    ],
)
def test_a_bad_agent_setting_is_refused_at_start_naming_it(
    command: str, variable: str, value: str, says: str, tmp_path: Path, model: FakeLLM
) -> None:
    path = tmp_path / "sluice.db"
    env = settings(model, SLUICE_DATABASE_URL=f"sqlite:///{path}")
    argv = [SLUICE, command]
    if command == "chat":  # alice must exist, or the chat stops for that
        subprocess.run([SLUICE, "demo"], env=env, capture_output=True, check=True, timeout=60)
        argv += ["--as", "alice"]
    with subprocess.Popen(
        argv, env=env | {variable: value}, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    ) as started:  # fmt: skip
        try:
            stdout, stderr = started.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            started.kill()
            pytest.fail(f"`sluice {command}` started with {variable}={value!r}")

    assert started.returncode == 2, stderr
    assert says in " ".join(stderr.split())
    assert stdout == ""  # no greeting, no banner: it stopped before anything
    assert path.exists() == (command == "chat")  # serve opened nothing
