"""The planner reads sheets with a reply of kind sheets: no tool call, so a server that binds
the reply to its schema from the first token (llama.cpp) serves the directory-first path.

Seen with Qwen2.5-Coder-1.5B on llama.cpp, sent `tools` and a json_schema response_format on
the same call: find_actions was called 0 times in 18 planner calls, and the model wrote
`find_actions('get_balance')` inside its programs instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from application.principals import PrincipalView
from gateway.agent import Agent
from gateway.core.facade import Gateway
from tests.agent import fake_llm as llm
from tests.agent.conftest import config_for
from tests.agent.fake_llm import FakeLLM, offered_kinds, offered_names, schema_of

PAY_BOB = 'transfer(payer="alice", payee="bob", amount=10)'


def sheets_shown(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The sheets a `[Sluice] The sheets of ...:` message holds."""
    assert message["role"] == "user"
    header, sheets, *_ = message["content"].split("\n")
    assert header.startswith("[Sluice] The sheets of ")
    shown: list[dict[str, Any]] = json.loads(sheets)
    return shown


def test_a_server_that_binds_the_reply_to_its_schema_still_serves_the_sheets(
    gateway: Gateway, llama_cpp: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    agent = Agent(gateway, config_for(llama_cpp, catalog="directory"))
    llama_cpp.push(llm.wants_sheets(["transfer"], llm.program(PAY_BOB)))
    llama_cpp.push(llm.wants_sheets(["transfer"], llm.program(PAY_BOB)))

    turn = agent.message(alice, "Pay bob 10")

    assert turn.kind == "program", turn.errors
    assert turn.program is not None
    assert turn.program.source == PAY_BOB
    assert turn.proposal is not None
    assert turn.proposal.status == "pending"
    assert turn.attempts == []
    first, second = llama_cpp.requests
    assert all("tools" not in request for request in llama_cpp.requests)
    offered = schema_of(first)
    assert offered is not None
    assert offered_kinds(offered) == ["sheets", "program", "question", "answer"]
    # alice's directory, no more
    assert offered_names(offered) == list(gateway.catalog_for(alice).names)
    asked, answered = second["messages"][-2:]
    assert json.loads(asked["content"]) == {"reply": {"kind": "sheets", "names": ["transfer"]}}
    assert sheets_shown(answered) == [
        sheet.model_dump(mode="json") for sheet in gateway.sheets(alice, ["transfer"])
    ]


def test_after_the_last_round_of_sheets_the_schema_offers_no_more(
    gateway: Gateway, llama_cpp: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    agent = Agent(gateway, config_for(llama_cpp, catalog="directory", max_tool_rounds=1))
    llama_cpp.push(llm.find_actions("transfer", "get_balance"), llm.program(PAY_BOB))

    turn = agent.message(who("teller"), "Pay bob 10 from alice")

    assert turn.proposal is not None
    assert turn.proposal.status == "pending"
    last = llama_cpp.requests[1]
    offered = schema_of(last)
    assert offered is not None
    assert offered_kinds(offered) == ["program", "question", "answer"]
    assert offered_names(offered) is None
    assert [s["name"] for s in sheets_shown(last["messages"][-1])] == ["transfer", "get_balance"]
    assert last["messages"][-1]["content"].endswith(
        "You have read enough sheets: reply now with a program, a question or an answer."
    )


def test_in_text_mode_names_without_a_sheet_are_said_and_asking_past_the_rounds_is_fixed(
    gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    """Nothing binds a reply in text mode: unknown or forbidden names, a third round."""
    alice = who("alice")
    agent = Agent(
        gateway,
        config_for(fake_llm, catalog="directory", structured_output="text", max_tool_rounds=1),
    )
    fake_llm.push(
        llm.find_actions("transfer", "teleport", "deposit"),
        llm.find_actions("get_balance"),
        llm.program(PAY_BOB),
    )

    turn = agent.message(alice, "Pay bob 10")

    assert turn.proposal is not None
    assert turn.proposal.status == "pending"
    first, second, third = fake_llm.requests
    assert "response_format" not in first
    told = first["messages"][0]["content"]  # the schema, in the prompt: every kind offered
    assert all(f'"enum":["{kind}"]' in told for kind in ("sheets", "program", "question", "answer"))
    shown = second["messages"][-1]
    assert [s["name"] for s in sheets_shown(shown)] == ["transfer"]
    assert (
        "No sheet: no use case teleport; deposit is not allowed for principal alice"
        in (shown["content"])
    )
    assert third["messages"][-1]["content"] == (
        "Your reply cannot be used: no more sheets can be read for this request: reply with "
        "a program, a question or an answer. Reply again with only the JSON object the format "
        "asks for."
    )


def test_a_tool_call_no_one_offered_is_fixed_with_the_way_to_ask_for_sheets(
    agent: Agent, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    fake_llm.push(llm.tool_call("find_actions", {"names": ["transfer"]}), llm.program(PAY_BOB))

    turn = agent.message(who("alice"), "Pay bob 10")

    assert turn.proposal is not None
    assert turn.proposal.status == "pending"
    fix = fake_llm.requests[1]["messages"][-1]["content"]
    assert "it calls a tool (find_actions) but there are no tools" in fix
    assert '{"kind": "sheets", "names": ["transfer"]}' in fix
