"""A provider that fails (timeout, 429, 500, broken replies) changes nothing.

"Nothing" is the whole event log: no conversation, no run, no account event. Replies that
arrive but cannot be used are another matter: a refused turn (test_reply_shapes).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from application.principals import PrincipalView
from gateway.agent import Agent, AgentConfig
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from tests.agent import fake_llm as llm
from tests.agent.conftest import config_for
from tests.agent.fake_llm import FakeLLM, Reply
from tests.conftest import store_state

PAY_BOB = 'transfer(payer="alice", payee="bob", amount=5)'


@pytest.mark.parametrize(
    ("replies", "says"),
    [
        ([llm.slow(1.0)], "did not answer within 0.2 s"),
        ([llm.error(429, "Rate limit reached", {"retry-after": "7"})], "rate limiting Sluice"),
        ([llm.error(500, "upstream exploded")], "failed (HTTP 500: upstream exploded)"),
        ([llm.error(503, "loading model")], "failed (HTTP 503: loading model)"),
        ([llm.broken_body()], "reply is malformed: its body is not JSON"),
        ([Reply(body={"unexpected": True})], "reply is malformed: no message"),
        (
            [llm.find_actions("transfer"), llm.error(500, "died mid-way")],
            "failed (HTTP 500: died mid-way)",
        ),
        ([llm.error(401, "Incorrect API key")], "refused the API key (HTTP 401"),
        ([llm.error(404, "model not found")], "does not serve model 'fake-model'"),
    ],
    ids=[
        "timeout",
        "429",
        "500",
        "503",
        "broken-json-body",
        "not-a-completion",
        "error-after-a-tool-call",
        "401",
        "404",
    ],
)
def test_a_provider_failure_is_a_clear_error_and_changes_nothing(
    gateway: Gateway,
    fake_llm: FakeLLM,
    who: Callable[[str], PrincipalView],
    replies: list[Reply],
    says: str,
) -> None:
    agent = Agent(gateway, config_for(fake_llm, timeout_seconds=0.2))
    fake_llm.push(*replies)
    before = store_state(gateway.ledger)

    with pytest.raises(GatewayError) as refused:
        agent.message(who("alice"), "Pay bob 5")

    assert refused.value.kind == "unavailable"
    assert says in str(refused.value)
    assert str(refused.value).endswith("nothing was changed")
    assert store_state(gateway.ledger) == before
    assert len(fake_llm.requests) == len(replies)


def test_a_rate_limit_passes_on_the_providers_retry_after(
    agent: Agent, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    fake_llm.push(llm.error(429, "slow down", {"retry-after": "7"}))

    with pytest.raises(GatewayError) as refused:
        agent.message(who("alice"), "Pay bob 5")

    assert refused.value.extra["retry_after"] == 7


def test_a_provider_failure_during_the_repair_leaves_the_conversation_and_accounts_alone(
    gateway: Gateway, agent: Agent, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    fake_llm.push(llm.question("How much?"))
    first = agent.message(alice, "Pay bob")
    conversation_before = agent.conversation(alice, first.conversation_id)
    balances_before = store_state(gateway.ledger)[1]
    fake_llm.push(llm.program("transfer("), llm.error(500, "gone"))

    with pytest.raises(GatewayError):
        agent.message(alice, "5", first.conversation_id)

    assert agent.conversation(alice, first.conversation_id) == conversation_before
    assert store_state(gateway.ledger)[1] == balances_before


def test_retries_are_configurable(
    gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    agent = Agent(gateway, config_for(fake_llm, max_retries=1))
    fake_llm.push(
        llm.error(500, "blip", {"retry-after-ms": "1"}), llm.question("How much for bob?")
    )

    turn = agent.message(who("alice"), "Pay bob")

    assert turn.kind == "question"
    assert len(fake_llm.requests) == 2


def test_a_reply_off_schema_once_is_asked_again_and_then_used(
    agent: Agent, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    fake_llm.push(llm.content("Sure! I will pay bob."), llm.question("How much?"))

    turn = agent.message(who("alice"), "Pay bob")

    assert turn.kind == "question"
    fix = fake_llm.requests[1]["messages"]
    assert fix[-2] == {"role": "assistant", "content": "Sure! I will pay bob."}
    assert fix[-1]["content"].startswith("Your reply cannot be used: the reply holds no JSON")


def test_without_json_schema_support_the_same_schema_is_read_from_text(
    agent: Agent, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    fenced = "Here you go:\n```json\n" + json.dumps(
        {"kind": "question", "language": None, "source": None, "explanation": None, "text": "?"}
    )
    fake_llm.push(
        llm.error(400, "response_format of type json_schema is not supported by this model"),
        llm.content(fenced + "\n```\nHope it helps."),
        llm.answer("Still text mode."),
    )

    turn = agent.message(who("alice"), "Pay bob")
    again = agent.message(who("alice"), "And?", turn.conversation_id)

    assert (turn.kind, turn.text) == ("question", "?")
    assert again.kind == "answer"
    tried, fell_back, stayed = fake_llm.requests
    assert tried["response_format"]["type"] == "json_schema"
    assert "response_format" not in fell_back and "response_format" not in stayed
    assert "valid against this JSON Schema" in fell_back["messages"][0]["content"]


def test_text_mode_can_be_chosen_and_json_schema_mode_does_not_fall_back(
    gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    text = Agent(gateway, config_for(fake_llm, structured_output="text"))
    fake_llm.push(llm.question("How much?"))
    text.message(who("alice"), "Pay bob")
    assert "response_format" not in fake_llm.requests[-1]

    strict = Agent(gateway, config_for(fake_llm, structured_output="json_schema"))
    fake_llm.push(llm.error(400, "response_format json_schema is not supported"))
    with pytest.raises(GatewayError) as refused:
        strict.message(who("alice"), "Pay bob")
    assert "rejected the request (HTTP 400" in str(refused.value)


def test_with_no_model_configured_the_agent_says_which_variables_to_set(
    gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    agent = Agent(gateway, AgentConfig())
    before = store_state(gateway.ledger)

    with pytest.raises(GatewayError) as refused:
        agent.message(who("alice"), "Pay bob 5")

    assert refused.value.kind == "unavailable"
    for variable in ("SLUICE_LLM_MODEL", "SLUICE_LLM_API_KEY", "OPENAI_API_KEY"):
        assert variable in str(refused.value)
    assert "SLUICE_LLM_BASE_URL" in str(refused.value)
    assert agent.unavailable == str(refused.value)
    assert store_state(gateway.ledger) == before
    assert fake_llm.requests == []


def test_a_bad_message_is_refused_before_any_model_call(
    agent: Agent, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    for text in ("", "   ", None, 42, "x" * 4001):
        with pytest.raises(GatewayError) as refused:
            agent.message(who("alice"), text)
        assert refused.value.kind == "bad-request"
    assert fake_llm.requests == []
