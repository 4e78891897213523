"""Every model call bounds its reply; a reply cut off at the bound is said so and fixed once.

Seen with Qwen2.5-Coder-1.5B on llama.cpp: a generation that loops, with no bound sent,
ran until the context was full (6.5 minutes and still going), and was then refused as "the
reply holds no JSON object".
"""

from __future__ import annotations

from collections.abc import Callable

from application.principals import PrincipalView
from gateway.agent import Agent
from gateway.core.facade import Gateway
from tests.agent import fake_llm as llm
from tests.agent.conftest import config_for
from tests.agent.fake_llm import FakeLLM
from tests.conftest import store_state

PAY_BOB = 'transfer(payer="alice", payee="bob", amount=10)'
# A program whose generation never ends: the model repeats one line of its source.
LOOPING = '{"kind": "program", "language": "python", "source": "total = 0\\n'


def test_every_request_bounds_the_reply_and_a_reply_cut_off_is_said_and_fixed_once(
    gateway: Gateway, llama_cpp: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    agent = Agent(gateway, config_for(llama_cpp))  # the default bound: 1024 tokens
    llama_cpp.push(llm.endless(LOOPING), llm.program(PAY_BOB))

    turn = agent.message(who("alice"), "Pay bob 10")

    assert [request.get("max_tokens") for request in llama_cpp.requests] == [1024, 1024]
    assert (turn["kind"], turn["program"]["source"]) == ("program", PAY_BOB)
    assert turn["proposal"]["status"] == "pending"
    fix = llama_cpp.requests[1]["messages"]
    assert fix[-1]["content"].startswith(
        "Your reply was cut off: it reached the bound of 1024 tokens before it was complete."
    )
    # What ran on is not sent back whole: a model shown its loop tends to go on with it.
    assert len(fix[-2]["content"]) < 300


def test_a_reply_cut_off_twice_is_a_refused_turn_that_names_the_bound(
    gateway: Gateway, llama_cpp: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    agent = Agent(gateway, config_for(llama_cpp))
    alice = who("alice")
    accounts = store_state(gateway.ledger)[1]
    llama_cpp.push(llm.endless(LOOPING), llm.endless(LOOPING))

    turn = agent.message(alice, "Pay bob 10")

    cut_off = (
        "the model's reply could not be used: the reply was cut off at the bound of 1024 "
        "tokens (SLUICE_LLM_MAX_TOKENS) before it was complete"
    )
    assert turn["kind"] == "refused"
    assert turn["errors"] == [
        f"{cut_off}. The model gave no usable reply twice; nothing was changed: ask again, "
        "perhaps in other words"
    ]
    assert turn["attempts"][0]["errors"] == [cut_off]
    assert len(llama_cpp.requests) == 2
    assert store_state(gateway.ledger)[1] == accounts
    kept = agent.conversation(alice, turn["conversation_id"])["turns"]
    assert [(t["request"], t["kind"]) for t in kept] == [("Pay bob 10", "refused")]


def test_a_provider_that_wants_max_completion_tokens_gets_it_from_then_on(
    agent: Agent, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    """OpenAI's reasoning models refuse max_tokens and name the parameter they take."""
    alice = who("alice")
    fake_llm.push(
        llm.error(
            400,
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
        ),
        llm.question("How much?"),
        llm.answer("Still bounded."),
    )

    turn = agent.message(alice, "Pay bob")
    agent.message(alice, "Hm", turn["conversation_id"])

    bounds = [(r.get("max_tokens"), r.get("max_completion_tokens")) for r in fake_llm.requests]
    assert bounds == [(1024, None), (None, 1024), (None, 1024)]
