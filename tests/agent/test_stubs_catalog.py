"""The stubs catalog (SLUICE_LLM_CATALOG=stubs): the planner reads the documented stubs of
what its principal may call, with the use cases' own examples, and writes the program in
one call: no sheets to ask for. Seen with Qwen2.5-Coder-1.5B: with the directory and sheets
it asked for sheets, then wrote a program that called find_actions or invented arguments.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from application.bank import BANK_USE_CASES
from application.principals import PrincipalView
from application.use_case import ME
from gateway.agent import Agent
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from tests.agent import fake_llm as llm
from tests.agent.conftest import config_for
from tests.agent.fake_llm import FakeLLM, offered_kinds, schema_of

PAY_BOB = 'transfer(payer="alice", payee="bob", amount=10)'


def test_with_the_stubs_the_planner_writes_the_program_in_one_call(
    gateway: Gateway, llama_cpp: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    agent = Agent(gateway, config_for(llama_cpp, catalog="stubs"))
    llama_cpp.push(llm.program(PAY_BOB))

    turn = agent.message(who("alice"), "Pay bob 10")

    assert turn.proposal is not None
    assert turn.proposal.status == "pending"
    (request,) = llama_cpp.planner_requests()
    assert offered_kinds(schema_of(request) or {}) == ["program", "question", "answer"]
    system = request["messages"][0]["content"]
    assert "def transfer(*, payer: str, payee: str" in system
    assert "        payee: The account that receives. Write it from the person's words" in system
    assert "def deposit(" not in system  # alice may not deposit: not shown, not offered
    # alice's examples are written with her own account, and no placeholder is left.
    assert 'transfer(payer=\\"alice\\", payee=\\"erin\\", amount=20' in system
    assert ME not in system
    assert "Move 30 euros from erin to frank." not in system  # a staff example
    assert system.endswith(
        "You act for principal alice (role customer); alice owns the accounts alice, and "
        '"my account" is alice.'
    )


def test_staff_see_the_staff_examples_of_what_they_may_call(
    gateway: Gateway, llama_cpp: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    agent = Agent(gateway, config_for(llama_cpp, catalog="stubs"))
    llama_cpp.push(llm.answer("I can read and move money."))

    agent.message(who("teller"), "What can you do?")

    system = llama_cpp.planner_requests()[0]["messages"][0]["content"]
    assert "User: Move 30 euros from erin to frank." in system
    assert "User: Take 40 euros out of my account." not in system  # an owner's example
    assert "def deposit(" in system
    assert system.endswith("You act for principal teller (role teller).")


def examples() -> list[tuple[str, str, str]]:
    """(use case, asker, program) of every example, its follow-up's program included."""
    found = []
    for use_case in BANK_USE_CASES:
        for example in use_case.examples:
            asker = "alice" if example.asked_by == "owner" else "teller"
            programs = [example.program, example.then[1] if example.then else ""]
            found += [(use_case.name, asker, p.replace(ME, "alice")) for p in programs if p]
    return found


@pytest.mark.parametrize(("use_case", "asker", "program"), examples())
def test_every_example_program_passes_the_gateway_s_checks(
    gateway: Gateway,
    who: Callable[[str], PrincipalView],
    use_case: str,
    asker: str,
    program: str,
) -> None:
    """A made-up account fails when the program runs; its checks (types, permissions) pass."""
    # A history for the examples that read one: a payment received, a rent paid.
    teller = who("teller")
    gateway.call(teller, "deposit", {"account": "bob", "amount": 50})
    gateway.call(teller, "transfer", {"payer": "bob", "payee": "alice", "amount": 20})
    gateway.call(
        teller, "transfer", {"payer": "alice", "payee": "carla", "amount": 30, "memo": "rent"}
    )
    try:
        gateway.propose(who(asker), "python", program, request="an example")
    except GatewayError as refusal:
        assert refusal.kind not in {"invalid-program", "forbidden"}, (use_case, str(refusal))
