"""The code has the last word: a reply that contradicts the outcome is corrected, never obeyed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from application.principals import PrincipalView
from gateway.agent import Agent
from gateway.agent.structured import ModelAnswer
from gateway.agent.verifier import verify
from gateway.core.facade import Gateway
from tests.agent import fake_llm as llm
from tests.agent.fake_llm import FakeLLM
from tests.conftest import Clock
from tests.gateway.conftest import accounts_state

DAN = (
    'for friend in ["bob", "carla", "dan"]:\n    transfer(payer="alice", payee=friend, amount=20)\n'
)
PAY_BOB = 'transfer(payer="alice", payee="bob", amount=30)'


def outcome(status: str, changed: Any = "nothing", error: str | None = None) -> dict[str, Any]:
    return {"status": status, "changed": changed, "events": [], "result": None, "error": error}


@pytest.mark.parametrize(
    ("status", "claims", "corrected"),
    [
        ("committed", "success", False),
        ("committed", "failure", True),
        ("failed", "failure", False),
        ("failed", "success", True),
        ("rejected", "success", True),
        ("rejected", "failure", False),
        ("expired", "success", True),
    ],
)
def test_the_claim_must_match_the_outcome(status: str, claims: str, corrected: bool) -> None:
    said = ModelAnswer(text="the model's words", claims=claims)  # type: ignore[arg-type]

    verified = verify(said, outcome(status, error="boom" if status == "failed" else None))

    assert verified["corrected"] is corrected
    assert verified["claims"] == claims
    if corrected:
        assert verified["model_text"] == "the model's words"
        assert verified["text"] != "the model's words"
        assert "nothing was written" in verified["text"] or status == "committed"
    else:
        assert (verified["text"], verified["model_text"]) == ("the model's words", None)


def test_an_answer_claiming_success_on_a_failed_run_is_corrected(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    before = accounts_state(gateway.ledger)
    fake_llm.push(
        llm.program(DAN),
        llm.reply("All three friends got their 20 euros!", "success"),
    )

    turn = agent.message(who("alice"), "20 each to bob, carla and dan")

    assert turn["outcome"]["status"] == "failed"
    assert turn["outcome"]["changed"] == "nothing"
    assert turn["answer"] == {
        "text": "The program failed: transfer: no account dan (line 2, column 5); "
        "nothing was written.",
        "claims": "success",
        "corrected": True,
        "model_text": "All three friends got their 20 euros!",
    }
    assert accounts_state(gateway.ledger) == before
    # The correction is what the store keeps, too.
    stored = agent.conversation(who("alice"), turn["conversation_id"])["turns"][0]
    assert stored["answer"]["corrected"] is True


def test_an_answer_claiming_failure_on_a_committed_run_is_corrected(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    fake_llm.push(llm.program(PAY_BOB))
    turn = agent.message(alice, "Pay bob 30")
    gateway.confirm(alice, turn["proposal"]["id"], turn["proposal"]["preview_hash"])
    fake_llm.push(llm.reply("Sorry, that did not work.", "failure"))

    read = agent.conversation(alice, turn["conversation_id"])["turns"][0]

    assert read["outcome"]["status"] == "committed"
    assert read["answer"]["corrected"] is True
    assert read["answer"]["text"] == "Done: 2 events were appended."


def test_a_rejected_proposal_is_answered_as_nothing_written(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    fake_llm.push(llm.program(PAY_BOB))
    turn = agent.message(alice, "Pay bob 30")
    gateway.reject(alice, turn["proposal"]["id"])
    fake_llm.push(llm.reply("Bob has his 30 euros.", "success"))

    read = agent.conversation(alice, turn["conversation_id"])["turns"][0]

    assert read["outcome"]["status"] == "rejected"
    assert read["answer"]["corrected"] is True
    assert read["answer"]["text"] == "The proposal was rejected; nothing was written."


def test_an_expired_proposal_is_answered_and_its_status_reaches_the_planner(
    agent: Agent,
    gateway: Gateway,
    fake_llm: FakeLLM,
    who: Callable[[str], PrincipalView],
    clock: Clock,
) -> None:
    alice = who("alice")
    fake_llm.push(llm.program(PAY_BOB))
    turn = agent.message(alice, "Pay bob 30")
    clock.advance(16 * 60)
    fake_llm.push(llm.reply("The proposal expired; bob got nothing.", "failure"))

    read = agent.conversation(alice, turn["conversation_id"])["turns"][0]

    assert read["outcome"]["status"] == "expired"
    assert read["outcome"]["changed"] == "nothing"
    assert read["answer"]["corrected"] is False
    fake_llm.push(llm.question("Try again?"))
    agent.message(alice, "Oh", turn["conversation_id"])
    last = fake_llm.requests[-1]["messages"][-1]["content"]
    assert last.startswith(
        "[Sluice] Status of your program of turn 1: expired before the user confirmed it"
    )
