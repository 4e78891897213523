"""The agent on a real gateway (both embedded stores, real sandbox), its model a fake server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from gateway.agent import Agent, AgentConfig
from gateway.core.facade import Gateway
from tests.agent.fake_llm import FakeLLM
from tests.gateway.conftest import gateway, who

__all__ = ["gateway", "who"]  # the gateway tests' fixtures, used here too


def config_for(fake: FakeLLM, **changes: Any) -> AgentConfig:
    """The fake's address; no retries and short timeouts keep failing tests fast."""
    settings: dict[str, Any] = {
        "model": "fake-model",
        "base_url": fake.url,
        "api_key": "sk-test",
        "timeout_seconds": 5.0,
        "max_retries": 0,
    }
    return AgentConfig(**(settings | changes))


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    fake = FakeLLM()
    yield fake
    fake.close()
    assert fake.unscripted == 0, "the agent asked the model more often than the test scripted"


@pytest.fixture
def llama_cpp() -> Iterator[FakeLLM]:
    """The fake served as llama.cpp serves: under a json_schema response_format the reply is
    bound to the schema from its first token (no tool call can come out)."""
    fake = FakeLLM(enforce_schema=True)
    yield fake
    fake.close()
    assert fake.unscripted == 0, "the agent asked the model more often than the test scripted"
    assert fake.impossible == [], "the test scripted replies such a server could not give"


@pytest.fixture
def agent(gateway: Gateway, fake_llm: FakeLLM) -> Agent:
    return Agent(gateway, config_for(fake_llm))
