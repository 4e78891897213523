"""The code has the last word: a reply that contradicts the outcome is corrected, never obeyed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from application.principals import PrincipalView
from application.results import Outcome, Proposal
from gateway.agent import Agent
from gateway.agent.authors import Authors
from gateway.agent.structured import ModelAnswer
from gateway.agent.verifier import verify
from gateway.core.facade import Gateway
from tests.agent import fake_llm as llm
from tests.agent.answers import facts, quoted, voice
from tests.agent.fake_llm import FakeLLM
from tests.conftest import Clock
from tests.gateway.conftest import accounts_state

DAN = (
    'for friend in ["bob", "carla", "dan"]:\n    transfer(payer="alice", payee=friend, amount=20)\n'
)
PAY_BOB = 'transfer(payer="alice", payee="bob", amount=30)'


def decided(status: str, error: str | None = None) -> tuple[Proposal, Outcome]:
    """A decided run with no events, as the gateway types it."""
    outcome = Outcome(
        run_id="r1", status=status, changed="nothing", events=[], result=None, error=error
    )
    example = Proposal.model_json_schema()["examples"][0]
    return Proposal.model_validate(example | {"outcome": outcome.model_dump()}), outcome


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
def test_the_claim_must_match_the_outcome(
    status: str, claims: str, corrected: bool, gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    said = ModelAnswer(text="The model's words.", claims=claims)  # type: ignore[arg-type]
    proposal, outcome = decided(status, error="boom" if status == "failed" else None)

    verified = verify(said, proposal, outcome, "do it", Authors(gateway.ledger, who("alice")))

    assert verified.corrected is corrected
    assert verified.claims == claims
    assert verified.model_text == "The model's words."
    assert verified.parts[0].kind == "facts"
    if corrected:
        assert verified.voice == ""
        assert [w.text for w in verified.withheld] == ["The model's words."]
        assert verified.withheld[0].reason == f"claims {claims}, but the run {status}"
    else:
        assert (verified.voice, verified.withheld) == ("The model's words.", ())


def test_an_answer_claiming_success_on_a_failed_run_is_corrected(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    before = accounts_state(gateway.ledger)
    fake_llm.push(
        llm.program(DAN),
        llm.reply("All three friends got their 20 euros!", "success"),
    )

    turn = agent.message(who("alice"), "20 each to bob, carla and dan")

    assert turn.outcome is not None
    assert turn.outcome.status == "failed"
    assert turn.outcome.changed == "nothing"
    answer = turn.answer
    assert answer is not None
    assert (answer.claims, answer.corrected) == ("success", True)
    assert answer.model_text == "All three friends got their 20 euros!"
    assert voice(answer) == ""
    assert [item.model_dump() for item in answer.withheld] == [
        {
            "text": "All three friends got their 20 euros!",
            "reason": "claims success, but the run failed",
        }
    ]
    assert facts(answer) == "Failed; nothing was written."
    assert quoted(answer) == [("Sluice", "transfer: no account dan (line 2, column 5)")]
    assert accounts_state(gateway.ledger) == before
    # The correction is what the store keeps, too.
    stored = agent.conversation(who("alice"), turn.conversation_id).turns[0]
    assert stored.answer is not None
    assert stored.answer.corrected is True


def test_an_answer_claiming_failure_on_a_committed_run_is_corrected(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    fake_llm.push(llm.program(PAY_BOB))
    turn = agent.message(alice, "Pay bob 30")
    assert turn.proposal is not None
    gateway.confirm(alice, turn.proposal.id, turn.proposal.preview_hash)
    fake_llm.push(llm.reply("Sorry, that did not work.", "failure"))

    read = agent.conversation(alice, turn.conversation_id).turns[0]

    assert read.outcome is not None
    assert read.outcome.status == "committed"
    assert read.answer is not None
    assert read.answer.corrected is True
    assert voice(read.answer) == ""
    assert read.answer.withheld[0].reason == (
        "claims failure, but the run committed; says something failed, but the run committed"
    )
    assert facts(read.answer).startswith("Committed: 2 events appended.\nalice: paid 30.00")


def test_a_rejected_proposal_is_answered_as_nothing_written(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    fake_llm.push(llm.program(PAY_BOB))
    turn = agent.message(alice, "Pay bob 30")
    assert turn.proposal is not None
    gateway.reject(alice, turn.proposal.id)
    fake_llm.push(llm.reply("Bob has his 30 euros.", "success"))

    read = agent.conversation(alice, turn.conversation_id).turns[0]

    assert read.outcome is not None
    assert read.outcome.status == "rejected"
    assert read.answer is not None
    assert read.answer.corrected is True
    assert voice(read.answer) == ""
    assert facts(read.answer) == "Rejected; nothing was written."


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

    read = agent.conversation(alice, turn.conversation_id).turns[0]

    assert read.outcome is not None
    assert read.outcome.status == "expired"
    assert read.outcome.changed == "nothing"
    assert read.answer is not None
    assert read.answer.corrected is False
    assert voice(read.answer) == "The proposal expired; bob got nothing."
    assert facts(read.answer) == "Expired before it was confirmed; nothing was written."
    fake_llm.push(llm.question("Try again?"))
    agent.message(alice, "Oh", turn.conversation_id)
    last = fake_llm.requests[-1]["messages"][-1]["content"]
    assert last.startswith(
        "[Sluice] Status of your program of turn 1: expired before the user confirmed it"
    )
