"""`make eval-agent` can fail: a served gateway, the fake model scripted right and wrong.

The harness runs its own scenarios (benchmarks/eval_scenarios.py) through a real
`sluice serve --demo` process and its recording proxy, against the fake OpenAI-compatible
server; a program that pays the wrong amount, or a reply with the wrong balance, fails.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

from benchmarks.eval_agent import Result, evaluate, writes_called
from benchmarks.eval_scenarios import by_name
from tests.agent import fake_llm as llm
from tests.agent.fake_llm import FakeLLM, Reply


def scripted(source: str, said: str) -> Callable[[dict[str, Any]], Reply]:
    """A model that plans `source` and then says `said`, however often it is asked."""

    def respond(request: dict[str, Any]) -> Reply:
        if llm.is_answerer(request):
            return llm.reply(said, "success")
        return llm.program(source)

    return respond


def run(name: str, source: str, said: str) -> Result:
    fake = FakeLLM()
    fake.push(*[scripted(source, said)] * 4)
    env = dict(os.environ) | {
        "SLUICE_LLM_BASE_URL": fake.url,
        "SLUICE_LLM_MODEL": "fake-model",
        "SLUICE_LLM_API_KEY": "sk-test",
        "SLUICE_LLM_TIMEOUT_SECONDS": "10",
        "SLUICE_LLM_MAX_RETRIES": "0",
    }
    try:
        (result,) = evaluate(by_name([name]), env)
    finally:
        fake.close()
    assert fake.unscripted == 0
    return result


def test_a_right_program_passes_and_the_calls_are_counted_by_the_proxy() -> None:
    result = run(
        "pay-one", 'transfer(payer="alice", payee="bob", amount=15)', "Sent 15 euros to bob."
    )

    assert result.outcome == "committed"
    assert result.effects == ["transfer alice->bob 15.00"]
    assert result.passed, result
    assert (result.planner_calls, result.answerer_calls) == (1, 1)
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    assert result.cut_at_cap == 0


def test_a_program_that_pays_the_wrong_amount_fails_the_exactness_check() -> None:
    result = run(
        "pay-one", 'transfer(payer="alice", payee="bob", amount=16)', "Sent 15 euros to bob."
    )

    assert result.outcome == "committed"
    assert result.effects == ["transfer alice->bob 16.00"]
    assert result.programs == ['transfer(payer="alice", payee="bob", amount=16)']
    assert not result.exact
    assert not result.passed


def test_an_answer_without_the_ledgers_balance_fails() -> None:
    # The demo's alice has 100.00; the scenario's setup paid carla 25.00 first. A program
    # that reads nothing leaves the model's figure alone, and the answer channel withholds it.
    wrong = run("my-balance", "checked = 1", "You have 100.00 euros.")
    right = run("my-balance", 'get_balance(account="alice")', "You have 75.00 euros.")

    assert (wrong.exact, wrong.true_answer) == (True, False)
    assert wrong.missing == ["balance of alice: 75.00"]
    assert not wrong.passed
    assert right.passed, right


def test_a_false_figure_beside_a_real_read_is_withheld_so_the_answer_stays_true() -> None:
    said = run("my-balance", 'get_balance(account="alice")', "You have 100.00 euros.")

    assert said.passed, said  # the code states 75.00; the model's 100.00 never shows


def test_a_program_calling_a_write_the_request_did_not_ask_for_fails_though_nothing_committed() -> (
    None
):
    # alice may not deposit; withdrawing instead fails to run (she has 75.00), so nothing is
    # written and the outcome is one the scenario accepts: only the call itself fails it.
    result = run(
        "forbidden-deposit", 'withdraw(account="alice", amount=1000)', "Nothing was written."
    )

    assert result.outcome == "refused"
    assert result.exact
    assert result.unasked == ["withdraw"]
    assert not result.passed


@pytest.mark.parametrize(
    ("language", "source", "writes"),
    [
        ("python", 'get_balance(account="alice")', set()),
        (
            "python",
            'for p in ["bob"]:\n    transfer(payer="alice", payee=p, amount=1)',
            {"transfer"},
        ),
        (
            "plan",
            '{"steps": [{"tool": "withdraw", "args": {}}, {"tool": "statement", "args": {}}]}',
            {"withdraw"},
        ),
        ("python", "transfer(", set()),  # does not parse: the gateway refused it anyway
    ],
)
def test_the_writes_a_program_calls_are_read_from_its_text(
    language: str, source: str, writes: set[str]
) -> None:
    assert writes_called(language, source) == writes
