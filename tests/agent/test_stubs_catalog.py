"""The stubs catalog (SLUICE_LLM_CATALOG=stubs): the planner reads the documented stubs of
what its principal may call, with the use cases' own examples, and writes the program in
one call: no sheets to ask for. Seen with Qwen2.5-Coder-1.5B: with the directory and sheets
it asked for sheets, then wrote a program that called find_actions or invented arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any

import pytest
from pydantic import Field

from application.bank import BANK_USE_CASES
from application.labels import Fact
from application.permissions import EVERYONE, Permission
from application.principals import PrincipalView
from application.unit_of_work import UnitOfWork
from application.use_case import ME, UseCase
from gateway.agent import Agent
from gateway.agent.catalog_form import STUBS_TOKEN_BUDGET, estimated_tokens, uses_stubs
from gateway.agent.prompts import planner_stubs_prompt
from gateway.core.catalog import Catalog
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


def _perform(self: UseCase[int], uow: UnitOfWork) -> Annotated[int, Fact]:
    return 0


def generated_use_cases(count: int) -> list[type[UseCase[Any]]]:
    """`count` made-up read use cases, each documented as a real one is."""
    made: list[type[UseCase[Any]]] = []
    for number in range(count):
        fields: dict[str, Any] = {
            "__doc__": f"Report number {number} on an account's movements over a period.",
            "__annotations__": {"account": str, "days": int},
            "name": f"report_{number}",
            "kind": "read",
            "permission": Permission.of(*EVERYONE),
            "account": Field(description="The account the report is about."),
            "days": Field(default=30, description="How many days back the report reaches."),
            "perform": _perform,
        }
        made.append(type(f"Report{number}", (UseCase[int],), fields))
    return made


@pytest.mark.parametrize(
    ("use_cases", "form"),
    [(BANK_USE_CASES, "stubs"), (generated_use_cases(200), "directory")],
    ids=["the bank", "200 use cases"],
)
def test_auto_shows_the_stubs_while_they_fit_the_budget_and_the_directory_beyond(
    who: Callable[[str], PrincipalView], use_cases: Sequence[type[UseCase[Any]]], form: str
) -> None:
    teller = who("teller")  # the widest catalog the bank gives one principal
    prompt = planner_stubs_prompt(teller, Catalog("header", use_cases))

    chosen = "stubs" if uses_stubs("auto", prompt) else "directory"

    assert chosen == form, estimated_tokens(prompt)
    assert uses_stubs("stubs", prompt) and not uses_stubs("directory", prompt)


def test_the_budget_holds_the_measured_bank_prompt_with_room_for_a_4k_context() -> None:
    # Measured with the model's tokenizer: 1,755 tokens for a teller (catalog_form.py).
    assert STUBS_TOKEN_BUDGET + 1024 < 4096
