"""Retries that cost the server nothing: a request that timed out is never sent again.

Seen with a slow local server (llama.cpp on a CPU): with the default timeout (60 s) and 2
retries, it received the same long request three times, each queued behind the last.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from application.principals import PrincipalView
from gateway.agent import Agent
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from tests.agent import fake_llm as llm
from tests.agent.conftest import config_for
from tests.agent.fake_llm import FakeLLM


def test_a_request_that_timed_out_is_not_sent_again(
    gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    agent = Agent(gateway, config_for(fake_llm, timeout_seconds=0.3, max_retries=2))
    fake_llm.push(llm.slow(1.0, llm.question("How much?")))

    with pytest.raises(GatewayError) as refused:
        agent.message(who("alice"), "Pay bob")

    assert len(fake_llm.requests) == 1
    assert str(refused.value).startswith(
        f"the model provider at {fake_llm.url} did not answer within 0.3 s; it was not asked "
        "again, since it may still be working on the request (a slow local model needs a "
        "longer SLUICE_LLM_TIMEOUT_SECONDS, or a smaller SLUICE_LLM_MAX_TOKENS)"
    )


def test_a_5xx_that_came_after_a_long_computation_is_not_sent_again(
    gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    """Quick means within a quarter of the timeout (at most 5 s): here 0.5 s."""
    agent = Agent(gateway, config_for(fake_llm, timeout_seconds=2.0, max_retries=2))
    fake_llm.push(llm.slow(1.0, llm.error(500, "out of memory")))

    with pytest.raises(GatewayError) as refused:
        agent.message(who("alice"), "Pay bob")

    assert len(fake_llm.requests) == 1
    assert "failed (HTTP 500: out of memory)" in str(refused.value)


def test_a_connection_failure_and_a_quick_429_or_5xx_are_asked_again(
    gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    agent = Agent(gateway, config_for(fake_llm, max_retries=3))
    fake_llm.push(
        llm.hang_up(),
        llm.error(429, "slow down", {"retry-after-ms": "1"}),
        llm.error(503, "loading model", {"retry-after-ms": "1"}),
        llm.question("How much for bob?"),
    )

    turn = agent.message(who("alice"), "Pay bob")

    assert turn["kind"] == "question"
    assert len(fake_llm.requests) == 4


def test_a_retry_after_longer_than_a_request_should_wait_is_passed_on_not_waited(
    gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    agent = Agent(gateway, config_for(fake_llm, max_retries=2))
    fake_llm.push(llm.error(429, "quota", {"retry-after": "30"}))

    with pytest.raises(GatewayError) as refused:
        agent.message(who("alice"), "Pay bob")

    assert refused.value.extra["retry_after"] == 30
    assert len(fake_llm.requests) == 1


def test_no_retries_at_all_when_set_to_zero(
    gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    agent = Agent(gateway, config_for(fake_llm, max_retries=0))
    fake_llm.push(llm.hang_up())

    with pytest.raises(GatewayError) as refused:
        agent.message(who("alice"), "Pay bob")

    assert "cannot reach the model provider" in str(refused.value)
    assert len(fake_llm.requests) == 1
