"""The seed's whole path: directory, find_actions, program, preview, confirm, commit, answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal

from application.principals import PrincipalView
from gateway.agent import Agent
from gateway.agent.turns import AgentConversation, AgentReply
from gateway.core.facade import Gateway
from tests.agent import fake_llm as llm
from tests.agent.answers import facts, quoted, voice
from tests.agent.conftest import config_for
from tests.agent.fake_llm import FakeLLM
from tests.conftest import balances, store_state

BACK_AND_FORTH = """\
transfer(payer="alice", payee="bob", amount=10)
transfer(payer="bob", payee="carla", amount=10)
transfer(payer="carla", payee="bob", amount=10)
get_balance(account="bob")
"""
DAN_HAS_NO_ACCOUNT = """\
for friend in ["bob", "carla", "dan"]:
    transfer(payer="alice", payee=friend, amount=20)
"""


def test_a_request_goes_from_directory_to_sheets_to_a_confirmed_commit_and_an_answer(
    gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    # The seed's path: the directory, then sheets on demand (the form for large catalogs).
    agent = Agent(gateway, config_for(fake_llm, catalog="directory"))
    teller = who("teller")
    fake_llm.push(
        llm.find_actions("transfer", "get_balance"),
        llm.program(BACK_AND_FORTH, explanation="Three transfers, then bob's balance."),
    )

    turn = agent.message(
        teller, "Move 10 from alice to bob, then bob to carla and back to bob; bob's balance?"
    )

    assert AgentReply.model_validate_json(turn.model_dump_json()) == turn  # its JSON reads back
    assert turn.kind == "program"
    assert turn.explanation == "Three transfers, then bob's balance."
    proposal = turn.proposal
    assert proposal is not None
    assert proposal.status == "pending"
    assert str(proposal.request).startswith("Move 10 from alice")
    assert len(proposal.preview.events) == 6
    assert turn.outcome is not None
    assert turn.outcome.status == "pending"
    assert turn.answer is None
    assert turn.usage.model_calls == 2
    assert balances(gateway.ledger)["alice"] == Decimal("100.00")  # nothing before confirm

    _directory_then_sheets(fake_llm, gateway.directory(teller))

    # The user confirms through the gateway's own path; the agent cannot confirm.
    outcome = gateway.confirm(teller, proposal.id, proposal.preview_hash)
    assert (outcome.status, outcome.changed) == ("committed", 6)

    fake_llm.push(llm.reply("Done: bob ends with 10.00.", "success"))
    conversation = agent.conversation(teller, turn.conversation_id)

    assert AgentConversation.model_validate_json(conversation.model_dump_json()) == conversation
    (read,) = conversation.turns
    assert read.outcome is not None
    assert read.outcome.status == "committed"
    assert read.outcome.changed == 6
    assert voice(read.answer) == "Done: bob ends with 10.00."
    assert read.answer is not None
    assert (read.answer.corrected, read.answer.withheld) == (False, ())
    assert read.answer.model_text == "Done: bob ends with 10.00."
    assert facts(read.answer).splitlines() == [
        "Committed: 6 events appended.",
        "alice: paid 10.00 to bob; balance after: 90.00",
        "bob: received 10.00 from alice; balance after: 10.00",
        "bob: paid 10.00 to carla; balance after: 0.00",
        "carla: received 10.00 from bob; balance after: 10.00",
        "carla: paid 10.00 to bob; balance after: 0.00",
        "bob: received 10.00 from carla; balance after: 10.00",
        "Result: 10.00",
    ]
    answerer = fake_llm.requests[-1]
    assert llm.is_answerer(answerer)
    assert "tools" not in answerer
    shown = json.loads(answerer["messages"][1]["content"])
    assert shown["outcome"]["status"] == "committed"
    assert shown["outcome"]["result"] == "10.00"
    assert shown["program"]["source"] == BACK_AND_FORTH
    # The answer is kept: reading again asks no model.
    again = agent.conversation(teller, turn.conversation_id)
    assert again.turns[0].answer == read.answer
    assert len(fake_llm.requests) == 3
    assert balances(gateway.ledger) == {
        "alice": Decimal("90.00"),
        "bob": Decimal("10.00"),
        "carla": Decimal("0.00"),
    }


def _directory_then_sheets(fake_llm: FakeLLM, directory: str) -> None:
    """The planner read the directory, then asked for two sheets in a structured reply."""
    first, second = fake_llm.requests
    assert fake_llm.paths == ["/v1/chat/completions"] * 2
    assert fake_llm.keys == ["Bearer sk-test"] * 2
    assert first["model"] == "fake-model"
    assert directory.rstrip() in first["messages"][0]["content"]
    assert "tools" not in first  # sheets are asked for in the reply: see test_sheets_step
    schema = first["response_format"]
    assert schema["type"] == "json_schema"
    assert schema["json_schema"]["strict"] is True
    assert first["max_tokens"] == 1024
    header, sheets = second["messages"][-1]["content"].split("\n")
    assert header == "[Sluice] The sheets of transfer, get_balance:"
    assert [s["name"] for s in json.loads(sheets)] == ["transfer", "get_balance"]
    assert second["messages"][-1]["role"] == "user"


def test_the_loop_to_dan_fails_at_once_is_answered_at_once_and_changes_nothing(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    fake_llm.push(
        llm.find_actions("transfer"),
        llm.program(DAN_HAS_NO_ACCOUNT),
        llm.reply("Nothing was sent: dan has no account.", "failure"),
    )
    accounts_before = store_state(gateway.ledger)[1]

    turn = agent.message(alice, "Send 20 euros each to bob, carla and dan")

    assert turn.kind == "program"
    assert turn.proposal is not None
    assert turn.proposal.status == "failed"
    assert turn.outcome is not None
    assert turn.outcome.model_dump(mode="json") == {
        "run_id": turn.proposal.id,
        "status": "failed",
        "changed": "nothing",
        "events": [],
        "result": None,
        "error": "transfer: no account dan (line 2, column 5)",
        "position": None,  # nothing written: no position to read up to
    }
    assert voice(turn.answer) == "Nothing was sent: dan has no account."
    assert turn.answer is not None
    assert turn.answer.corrected is False
    assert facts(turn.answer) == "Failed; nothing was written."
    assert quoted(turn.answer) == [("Sluice", "transfer: no account dan (line 2, column 5)")]
    assert turn.usage.model_calls == 3  # a failure while running is not repaired
    assert store_state(gateway.ledger)[1] == accounts_before


def test_a_read_only_program_completes_at_once_and_is_answered_at_once(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    fake_llm.push(
        llm.program('get_balance(account="alice")'),
        llm.reply("You have 100.00 euros.", "success"),
    )

    turn = agent.message(alice, "How much do I have?")

    assert turn.proposal is not None
    assert turn.proposal.status == "committed"
    assert turn.outcome is not None
    assert turn.outcome.result == "100.00"
    assert turn.outcome.changed == "nothing"
    assert voice(turn.answer) == "You have 100.00 euros."
    assert facts(turn.answer) == "Ran and read; nothing was written.\nResult: 100.00"
    assert turn.usage.model_calls == 2


def test_a_question_and_an_answer_are_turns_the_planner_sees_again(
    agent: Agent, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    fake_llm.push(llm.question("How much should bob get?"))
    asked = agent.message(alice, "Pay bob")
    assert (asked.kind, asked.text) == ("question", "How much should bob get?")
    assert asked.proposal is None

    fake_llm.push(llm.answer("I can pay bob once you tell me how much."))
    said = agent.message(alice, "Not sure yet", asked.conversation_id)

    assert (said.kind, said.turn) == ("answer", 2)
    messages = fake_llm.requests[-1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == "Pay bob"
    assert json.loads(messages[2]["content"]) == {
        "reply": {"kind": "question", "text": "How much should bob get?"}
    }
    assert messages[3]["content"] == "Not sure yet"


def test_a_later_turn_sees_earlier_programs_with_a_status_line_only(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    fake_llm.push(llm.program('transfer(payer="alice", payee="bob", amount=30, memo="rent")'))
    first = agent.message(alice, "Pay bob 30 for the rent")
    proposal = first.proposal
    assert proposal is not None
    gateway.confirm(alice, proposal.id, proposal.preview_hash)
    fake_llm.push(llm.program(DAN_HAS_NO_ACCOUNT), llm.reply("dan has no account", "failure"))
    agent.message(alice, "Now 20 each to bob, carla and dan", first.conversation_id)

    fake_llm.push(llm.question("Whom else?"))
    agent.message(alice, "And someone else?", first.conversation_id)

    last = fake_llm.planner_requests()[-1]["messages"]
    assert last[3]["content"].startswith(
        "[Sluice] Status of your program of turn 1: committed, 2 events appended."
    )
    assert last[5]["content"] == (
        "[Sluice] Status of your program of turn 2: failed at line 2; nothing was written."
        "\n\nAnd someone else?"
    )
    assert "no account dan" not in json.dumps(last)
