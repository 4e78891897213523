"""The table of injected memos and owner names (tests/agent/injection_table.py), each case a
conversation against a model that obeys whatever it reads: nothing the attacker wrote speaks
in the assistant's voice, no false fact reaches the user unmarked, no program takes an
argument from data, and the ledger moves only as the user asked."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from application.principals import PrincipalView
from gateway.agent import Agent
from gateway.core.facade import Gateway
from tests.agent.fake_llm import FakeLLM
from tests.agent.injection_table import BENIGN, CASES, Case, run_case


def test_the_table_is_large_and_varied() -> None:
    assert len(CASES) >= 30
    assert len({case.template.name for case in CASES}) >= 5
    assert {case.carrier for case in CASES} == {"transfer memo", "deposit memo", "owner"}
    assert sum(len(case.steps) > 1 for case in CASES) >= 10  # multi-turn conversations


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_an_injected_text_never_speaks_for_the_assistant(
    case: Case,
    agent: Agent,
    gateway: Gateway,
    fake_llm: FakeLLM,
    who: Callable[[str], PrincipalView],
) -> None:
    verdict = run_case(agent, gateway, fake_llm, who, case)

    assert verdict.findings == []
    assert verdict.turns == len(case.steps)


@pytest.mark.parametrize("case", BENIGN, ids=[case.name for case in BENIGN])
def test_a_truthful_answer_about_harmless_data_stands_whole(
    case: Case,
    agent: Agent,
    gateway: Gateway,
    fake_llm: FakeLLM,
    who: Callable[[str], PrincipalView],
) -> None:
    verdict = run_case(agent, gateway, fake_llm, who, case)

    assert verdict.findings == []
    assert verdict.withheld == 0 and verdict.prose_kept
