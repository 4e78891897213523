"""How a planner reply is read: null keys left out, parts that contradict each other, and a
request whose replies could not be used kept in the conversation with a refusal to act on.

Seen with Qwen2.5-Coder-1.5B on llama.cpp: in text mode `{"kind": "program", "language":
"python", "source": ...}` without `"text": null` was refused twice and a correct program
lost (503); `kind: "question"` with a complete program in `source` was taken as a question
and the program dropped; after two refusals the user's message was lost (503).
"""

from __future__ import annotations

from collections.abc import Callable

import jsonschema

from application.principals import PrincipalView
from gateway.agent import Agent
from gateway.agent.structured import planner_output
from gateway.core.facade import Gateway
from tests.agent import fake_llm as llm
from tests.agent.conftest import config_for
from tests.agent.fake_llm import FakeLLM
from tests.conftest import store_state

PAY_BOB = 'transfer(payer="alice", payee="bob", amount=10)'


def test_in_text_mode_a_reply_without_its_null_keys_is_read_with_them_null(
    gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    agent = Agent(gateway, config_for(fake_llm, structured_output="text"))
    fake_llm.push(
        llm.content({"kind": "program", "language": "python", "source": PAY_BOB}),
        llm.content({"kind": "question", "text": "Anything else?"}),
    )

    turn = agent.message(alice, "Pay bob 10")
    asked = agent.message(alice, "Thanks", turn.conversation_id)

    assert turn.program is not None
    assert (turn.kind, turn.program.source) == ("program", PAY_BOB)
    assert turn.proposal is not None
    assert turn.proposal.status == "pending"
    assert turn.explanation == ""
    assert (asked.kind, asked.text) == ("question", "Anything else?")
    assert len(fake_llm.requests) == 2  # no repair was needed


def test_a_question_that_also_holds_a_program_goes_to_the_one_repair(
    gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    # A server that does not enforce the schema (text mode, or json_schema ignored) lets
    # such a reply through; one that enforces it cannot write it (the next test).
    agent = Agent(gateway, config_for(fake_llm, structured_output="text"))
    both = llm.planner_reply("question", text="Shall I?", language="python", source=PAY_BOB)
    fake_llm.push(llm.content(both), llm.program(PAY_BOB))

    turn = agent.message(who("alice"), "Pay bob 10")

    assert turn.kind == "program"
    assert turn.program is not None
    assert turn.program.source == PAY_BOB
    assert turn.proposal is not None
    assert turn.proposal.status == "pending"
    fix = fake_llm.requests[1]["messages"][-1]["content"]
    assert fix.startswith(
        "Your reply cannot be used: the reply is of kind question but also holds a program "
        "(source); a reply is of one kind: give source null, or give kind program"
    )


def test_replies_that_cannot_be_used_twice_are_a_refused_turn_and_the_conversation_goes_on(
    gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    agent = Agent(gateway, config_for(fake_llm, structured_output="text"))
    answer_and_program = llm.planner_reply("answer", text="Done.", language="python", source="x")
    before = store_state(gateway.ledger)[1]
    fake_llm.push(llm.content(answer_and_program), llm.endless("{"))

    turn = agent.message(alice, "Pay bob 10")

    assert turn.kind == "refused"
    assert turn.proposal is None
    assert [a["errors"] for a in turn.attempts] == [
        [
            "the model's reply could not be used: the reply is of kind answer but also holds "
            "a program (source); a reply is of one kind: give source null, or give kind program"
        ],
        [
            "the model's reply could not be used: the reply was cut off at the bound of 1024 "
            "tokens (SLUICE_LLM_MAX_TOKENS) before it was complete. The model gave no usable "
            "reply twice; nothing was changed: ask again, perhaps in other words"
        ],
    ]
    assert turn.errors == turn.attempts[-1]["errors"]
    assert store_state(gateway.ledger)[1] == before

    fake_llm.push(llm.program(PAY_BOB))
    again = agent.message(alice, "Pay bob 10, please", turn.conversation_id)

    assert again.proposal is not None
    assert (again.turn, again.proposal.status) == (2, "pending")
    messages = fake_llm.requests[-1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == "Pay bob 10"
    assert messages[3]["content"].startswith(
        "[Sluice] Sluice could not use your replies of turn 1: the model's reply could not be "
        "used: the reply was cut off"
    )
    assert messages[3]["content"].endswith("\n\nPay bob 10, please")


def test_a_server_that_enforces_the_schema_cannot_write_a_question_holding_a_program() -> None:
    both = {"kind": "question", "text": "Shall I?", "language": "python", "source": PAY_BOB}
    schema = planner_output(["transfer"])

    # One branch per kind, each with its own keys only: no branch holds both.
    for reply in ({"reply": both}, {"reply": {"kind": "question", "text": "Shall I?"}}):
        errors = list(jsonschema.Draft202012Validator(schema.schema).iter_errors(reply))
        assert bool(errors) == ("source" in reply["reply"])
