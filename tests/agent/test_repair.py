"""A program refused by its checks goes back to the planner once; a second refusal ends it."""

from __future__ import annotations

import json
from collections.abc import Callable
from uuid import UUID

from application.principals import PrincipalView
from gateway.agent import Agent
from gateway.core.facade import Gateway
from tests.agent import fake_llm as llm
from tests.agent.conftest import config_for
from tests.agent.fake_llm import FakeLLM, offered_kinds, schema_of
from tests.gateway.conftest import accounts_state

TEN_AS_TEXT = 'transfer(payer="alice", payee="bob", amount="ten")'
PAY_BOB = 'transfer(payer="alice", payee="bob", amount=10)'


def test_a_program_that_fails_its_checks_is_repaired_once_with_the_errors_quoted(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    fake_llm.push(llm.program(TEN_AS_TEXT), llm.program(PAY_BOB))

    turn = agent.message(alice, "Pay bob ten euros")

    assert turn.kind == "program"
    assert turn.program is not None
    assert turn.program.source == PAY_BOB
    assert turn.proposal is not None
    assert turn.proposal.status == "pending"
    (refused,) = turn.attempts
    assert refused["source"] == TEN_AS_TEXT
    assert refused["errors"][0].startswith("type error: Argument to function `transfer`")
    repair = fake_llm.requests[1]["messages"]
    assert json.loads(repair[-2]["content"])["reply"]["source"] == TEN_AS_TEXT
    assert repair[-1]["role"] == "user"
    assert refused["errors"][0] in repair[-1]["content"]
    assert "only repair" in repair[-1]["content"]
    # The refused attempt is in the gateway's audit trail as a failed run.
    assert gateway.proposal(alice, refused["run_id"]).status == "failed"


def test_a_second_refusal_refuses_the_request_with_the_errors_shown(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    before = accounts_state(gateway.ledger)
    fake_llm.push(llm.program(TEN_AS_TEXT), llm.program('deposit(account="alice", amount=5)'))

    turn = agent.message(alice, "Pay bob ten euros")

    assert turn.kind == "refused"
    assert turn.proposal is None
    assert turn.errors == ["deposit is not allowed for principal alice (line 1, column 1)"]
    assert [len(a["errors"]) for a in turn.attempts] == [1, 1]
    assert len(fake_llm.requests) == 2  # no third try
    assert accounts_state(gateway.ledger) == before

    # The refusal is part of the conversation; the next turn's planner sees it.
    fake_llm.push(llm.question("Shall I try again?"))
    agent.message(alice, "Why?", turn.conversation_id)
    last = fake_llm.requests[-1]["messages"][-1]["content"]
    assert last.startswith(
        "[Sluice] Sluice refused your program of turn 1 before running it: "
        "deposit is not allowed for principal alice (line 1, column 1)"
    )


def test_a_syntax_error_and_a_plan_schema_error_are_repairable_too(
    agent: Agent, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    bad_plan = json.dumps({"steps": [{"tool": "nope", "args": {}}]})
    good_plan = json.dumps(
        {"steps": [{"tool": "transfer", "args": {"payer": "alice", "payee": "bob", "amount": 5}}]}
    )
    fake_llm.push(llm.program(bad_plan, language="plan"), llm.program(good_plan, language="plan"))
    plan = agent.message(alice, "Pay bob 5")
    assert plan.proposal is not None
    assert plan.proposal.status == "pending"
    assert "plan: tool" in plan.attempts[0]["errors"][0]

    fake_llm.push(llm.program("transfer("), llm.program(PAY_BOB))
    python = agent.message(alice, "Pay bob 10")
    assert python.proposal is not None
    assert python.proposal.status == "pending"
    assert python.attempts[0]["errors"][0].startswith("syntax error")


def test_a_refusal_after_a_use_case_ran_is_not_repaired_and_not_quoted_to_the_planner(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    """`alice has only 100.00` is data: the run failed; only the answerer sees why."""
    alice = who("alice")
    fake_llm.push(
        llm.program('transfer(payer="alice", payee="bob", amount=500)'),
        llm.reply("You do not have 500 euros; nothing was sent.", "failure"),
    )

    turn = agent.message(alice, "Pay bob 500")

    assert turn.proposal is not None
    assert turn.proposal.status == "failed"
    assert turn.outcome is not None
    assert turn.outcome.error == "transfer: alice has only 100.00 (line 1, column 1)"
    assert turn.attempts == []
    assert len(fake_llm.planner_requests()) == 1
    fake_llm.push(llm.question("How much then?"))
    agent.message(alice, "Hm", turn.conversation_id)
    for request in fake_llm.planner_requests():
        assert "has only" not in json.dumps(request)
    assert "has only" in json.dumps(fake_llm.answerer_requests()[0])


def test_a_runtime_denial_after_a_read_is_not_quoted_either(
    agent: Agent, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    """The account named in the denial was chosen by data, so the error stays away too."""
    alice = who("alice")
    program = (
        'left = get_balance(account="alice")\n'
        'withdraw(account="bob" if left > 50 else "carla", amount=1)\n'
    )
    fake_llm.push(llm.program(program), llm.reply("That account is not yours.", "failure"))

    turn = agent.message(alice, "Take 1 euro from whoever")

    assert turn.proposal is not None
    assert turn.proposal.status == "failed"
    assert turn.outcome is not None
    assert "account <value> is not an account of principal alice" in str(turn.outcome.error)
    assert turn.attempts == []
    assert len(fake_llm.planner_requests()) == 1


def test_a_program_with_unprintable_text_is_refused_before_any_run_and_repaired(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    spoofing = 'transfer(payer="alice", payee="bob", amount=10, memo="\u202erent")'
    position = gateway.ledger.recorder.max_notification_id()
    fake_llm.push(llm.program(spoofing), llm.program(PAY_BOB))

    turn = agent.message(alice, "Pay bob ten euros")

    assert turn.proposal is not None
    assert turn.proposal.status == "pending"
    (refused,) = turn.attempts
    assert refused["run_id"] is None  # refused as text: no run keeps it
    assert refused["errors"] == [
        "source: the bidi control U+202E is not allowed; write it as an escape in a string "
        "(line 1, column 55)"
    ]
    assert refused["errors"][0] in fake_llm.requests[1]["messages"][-1]["content"]
    # No run keeps the refused text: the log's runs are the pending proposal's alone.
    stored = gateway.ledger.recorder.select_notifications((position or 0) + 1, 100)
    runs = [n for n in stored if n.topic.startswith("domain.run:")]
    assert {n.originator_id for n in runs} == {UUID(turn.proposal.id)}


def test_a_program_refused_for_permissions_is_repaired_without_a_question_to_the_user(
    gateway: Gateway, llama_cpp: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    """Asking the user cannot give alice bob's account: the repair offers no question."""
    agent = Agent(gateway, config_for(llama_cpp))
    before = accounts_state(gateway.ledger)
    llama_cpp.push(
        llm.program('transfer(payer="bob", payee="alice", amount=10)'),
        llm.answer("I cannot send money from bob's account: only bob may."),
    )

    turn = agent.message(who("alice"), "Send 10 euros from bob's account to me.")

    assert (turn.kind, turn.text) == (
        "answer",
        "I cannot send money from bob's account: only bob may.",
    )
    first, repair = llama_cpp.planner_requests()
    assert "question" in offered_kinds(schema_of(first) or {})
    assert "question" not in offered_kinds(schema_of(repair) or {})
    asked = repair["messages"][-1]["content"]
    assert "The principal may not do this, and asking the user cannot change that." in asked
    assert "bob" in asked  # the refusal names the account, from the program's own text
    assert accounts_state(gateway.ledger) == before


def test_a_question_after_a_refusal_for_permissions_is_not_taken(
    gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    """A server that does not enforce the schema may still send one: it is a reply to fix."""
    agent = Agent(gateway, config_for(fake_llm, structured_output="text"))
    fake_llm.push(
        llm.program('transfer(payer="bob", payee="alice", amount=10)'),
        llm.question("Shall I ask bob?"),
        llm.answer("I cannot use bob's account."),
    )

    turn = agent.message(who("alice"), "Send 10 euros from bob's account to me.")

    assert turn.kind == "answer"
    fix = fake_llm.planner_requests()[-1]["messages"][-1]["content"]
    assert fix.startswith("Your reply cannot be used: no question now: the request was refused")
