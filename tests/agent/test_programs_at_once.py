"""The agent's program counts in its principal's programs_at_once like any other (issue 14):
past it, the message is refused as rate-limited, and the program is not sent for repair."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from application.principals import PrincipalView
from gateway.agent import Agent
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from tests.agent import fake_llm as llm
from tests.agent.fake_llm import FakeLLM
from tests.gateway.conftest import accounts_state
from tests.gateway.test_programs_at_once import running

PAY_BOB = 'transfer(payer="alice", payee="bob", amount=10)'


def test_past_programs_at_once_the_agents_program_is_refused_not_repaired(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    before = accounts_state(gateway.ledger)
    fake_llm.push(llm.program(PAY_BOB))

    with running(gateway, alice), pytest.raises(GatewayError) as refused:
        agent.message(alice, "Pay bob ten euros")

    assert refused.value.kind == "rate-limited"
    assert str(refused.value).startswith(
        "cap programs_at_once: principal alice may run 1 program at once and 1 is running"
    )
    assert len(fake_llm.planner_requests()) == 1  # no repair: the program was not at fault
    assert accounts_state(gateway.ledger) == before
