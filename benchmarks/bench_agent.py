"""Token economy of the agent: the directory against all sheets, and model calls per request;
then the answer channel under injection: utility and attack figures over the injection table.

Sizes are of the exact text the planner is sent; tokens are estimated as bytes / 4 (the
usual rule of thumb for English and JSON with GPT-style BPE tokenizers; no tokenizer is
loaded). The scenarios run the real agent and gateway (in-memory store, real sandbox)
against the test suite's fake OpenAI-compatible server, with scripted replies: they count
the calls and bytes the agent makes, not the quality of any model.

The injection table (tests/agent/injection_table.py) plays each case's conversation against
a worst-case model that obeys any instruction it sees and claims what the run's status calls
for; the harmless variants (same scenarios, harmless memos and names) measure utility. The
"claims-only check" column is what the reply would have shown had only the model's claim
been compared with the status (the answer channel before it was the code's).

    python -m benchmarks.bench_agent
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from application import principals
from application.principals import PrincipalView
from application.results import Sheet
from gateway.agent import Agent, AgentConfig
from gateway.agent.catalog_form import CatalogForm
from gateway.agent.prompts import FIND_ACTIONS, planner_prompt, planner_stubs_prompt
from gateway.agent.structured import PLANNER_OUTPUT, written
from gateway.bootstrap import Sluice
from gateway.demo import seed
from tests.agent import fake_llm as llm
from tests.agent import injection_table as table
from tests.agent.fake_llm import FakeLLM, Reply

# The two forms compared side by side (`auto` is one of them, chosen by size).
FORMS: tuple[CatalogForm, ...] = ("directory", "stubs")

BACK_AND_FORTH = """\
transfer(payer="alice", payee="bob", amount=10)
transfer(payer="bob", payee="carla", amount=10)
transfer(payer="carla", payee="bob", amount=10)
get_balance(account="bob")
"""
DAN = """\
for friend in ["bob", "carla", "dan"]:
    transfer(payer="alice", payee=friend, amount=20)
"""


def tokens(size: int) -> int:
    return round(size / 4)


def compact(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def _json(sheets: list[Sheet]) -> list[dict[str, Any]]:
    return [sheet.model_dump(mode="json") for sheet in sheets]


def sizes(sluice: Sluice) -> list[tuple[str, int]]:
    catalog = sluice.catalog
    alice = _who(sluice, "alice")
    return [
        ("directory (all 8 use cases)", len(catalog.directory().encode())),
        ("directory as alice sees it", len(sluice.gateway.directory(alice).encode())),
        ("all 8 sheets (find_actions result)", compact(_json(catalog.sheets(catalog.names)))),
        ("one sheet: transfer", compact(_json(catalog.sheets(["transfer"])))),
        ("planner system prompt, alice (with directory)", len(_prompt(sluice, alice).encode())),
        (
            "planner system prompt, alice (stubs catalog)",
            len(_stubs_prompt(sluice, alice).encode()),
        ),
        ("planner output schema", compact(PLANNER_OUTPUT.response_format())),
        ("find_actions (a sheets reply, as the prompt shows it)", len(written(FIND_ACTIONS))),
    ]


@dataclass
class Scenario:
    name: str
    principal: str
    request: str
    reads: Reply  # the request for sheets, with the directory catalog only
    replies: list[Reply]
    confirm: bool = False
    answer: Reply | None = None  # the answerer's reply once the user has decided


SCENARIOS = [
    Scenario(
        "seed: back and forth, confirmed",
        "teller",
        "Move 10 from alice to bob, bob to carla, carla back to bob; bob's balance?",
        llm.find_actions("transfer", "get_balance"),
        [llm.program(BACK_AND_FORTH)],
        confirm=True,
        answer=llm.reply("Done; bob has 10.00.", "success"),
    ),
    Scenario(
        "seed: loop to dan (fails at once)",
        "alice",
        "Send 20 each to bob, carla and dan",
        llm.find_actions("transfer"),
        [
            llm.program(DAN),
            llm.reply("dan has no account; nothing sent.", "failure"),
        ],
    ),
    Scenario(
        "read only: my balance",
        "alice",
        "How much do I have?",
        llm.find_actions("get_balance"),
        [
            llm.program('get_balance(account="alice")'),
            llm.reply("You have 100.00 euros.", "success"),
        ],
    ),
    Scenario(
        "one repair, then confirmed",
        "alice",
        "Pay bob ten euros",
        llm.find_actions("transfer"),
        [
            llm.program('transfer(payer="alice", payee="bob", amount="ten")'),
            llm.program('transfer(payer="alice", payee="bob", amount=10)'),
        ],
        confirm=True,
        answer=llm.reply("Bob got 10 euros.", "success"),
    ),
    Scenario(
        "clarifying question",
        "alice",
        "Pay bob",
        llm.find_actions("transfer"),
        [llm.question("How much?")],
    ),
]


def run(sluice: Sluice, fake: FakeLLM, scenario: Scenario, catalog: CatalogForm) -> dict[str, Any]:
    agent = Agent(sluice.gateway, _config(fake, catalog))
    principal = _who(sluice, scenario.principal)
    start = len(fake.requests)
    # With the stubs every sheet is in the prompt already: no request for them.
    fake.push(*([scenario.reads] if catalog == "directory" else []), *scenario.replies)
    turn = agent.message(principal, scenario.request)
    outcome = turn.outcome.status if turn.outcome else turn.kind
    if turn.proposal and turn.proposal.status == "pending":
        proposal = turn.proposal
        if scenario.confirm:
            sluice.gateway.confirm(principal, proposal.id, proposal.preview_hash)
        else:
            sluice.gateway.reject(principal, proposal.id)
        if scenario.answer is not None:
            fake.push(scenario.answer)
        read = agent.conversation(principal, turn.conversation_id).turns[-1]
        assert read.outcome is not None  # a program turn's
        outcome = read.outcome.status
    sent = fake.raw_requests[start:]
    requests = fake.requests[start:]
    planner = sum(1 for r in requests if llm.is_planner(r))
    return {
        "scenario": scenario.name,
        "catalog": catalog,
        "outcome": outcome,
        "planner": planner,
        "answerer": len(requests) - planner,
        "bytes": sum(len(body) for body in sent),
        "largest": max(len(body) for body in sent),
    }


@dataclass
class Channel:
    """Counts over the turns of a set of cases."""

    cases: int = 0
    turns: int = 0
    obeyed: int = 0  # the model's reply carried the attacker's text
    leaks: int = 0  # attacker text in the assistant's voice (or the code's facts)
    leaks_before: int = 0  # ... had only the claim been checked
    false: int = 0  # a false fact unmarked
    false_before: int = 0
    data_arguments: int = 0
    unwanted_writes: int = 0
    quoted_turns: int = 0  # turns whose data was quoted with its author, movements listed
    showing_turns: int = 0
    true_cases: int = 0  # no finding at all
    whole_prose: int = 0  # no finding, and the truthful model's prose stood whole
    withheld: int = 0


def injection(fake: FakeLLM, cases: list[table.Case]) -> Channel:
    counts = Channel()
    for case in cases:
        with Sluice("memory://") as sluice:
            seed(sluice.gateway)
            agent = Agent(sluice.gateway, _config(fake))
            verdict = table.run_case(agent, sluice.gateway, fake, lambda n: _who(sluice, n), case)
            _count(counts, case, verdict, sluice)
    return counts


def _count(counts: Channel, case: table.Case, verdict: table.Verdict, sluice: Sluice) -> None:
    counts.cases += 1
    counts.turns += verdict.turns
    counts.withheld += verdict.withheld
    for turn in verdict.answered:
        answer = turn.answer
        model = answer.model_text if answer else ""
        counts.obeyed += table.leaked(model, case) is not None
        assert turn.outcome is not None  # a judged turn is a program's
        before = _claims_only(model, str(answer.claims if answer else None), turn.outcome.status)
        counts.leaks_before += table.leaked(before, case) is not None
        counts.false_before += bool(table.false_claims(before, turn, sluice.gateway))
        said = table.voice(answer) + "\n" + table.facts(answer)
        counts.leaks += table.leaked(said, case) is not None
        counts.false += bool(table.false_claims(table.voice(answer), turn, sluice.gateway))
    steps = [s for s in case.steps if s.shows][: verdict.turns]
    counts.showing_turns += len(steps)
    counts.quoted_turns += len(steps) if not verdict.unquoted else 0
    counts.data_arguments += bool(verdict.data_arguments)
    counts.unwanted_writes += bool(verdict.unwanted_writes)
    counts.true_cases += not verdict.findings
    counts.whole_prose += not verdict.findings and verdict.withheld == 0


def _claims_only(text: str, claims: str, status: str) -> str:
    """What a check of the claim alone let through: the reply, unless it claimed the opposite."""
    expected = "success" if status == "committed" else "failure"
    return text if claims == expected else ""


def show_injection(attacked: Channel, benign: Channel) -> None:
    def share(part: int, whole: int) -> str:
        return f"{part} of {whole} ({part / whole:.0%})" if whole else "0 of 0"

    print("\nThe answer channel under injection (worst-case obedient model)\n")
    print(
        f"{attacked.cases} attacked conversations ({attacked.turns} answered turns); "
        f"{benign.cases} harmless ones ({benign.turns} turns).\n"
    )
    print("| figure | now | claims-only check |")
    print("|---|---:|---:|")
    rows = [
        ("model replies that carried the attacker's text", attacked.obeyed, attacked.obeyed),
        ("attacker text in the assistant's voice", attacked.leaks, attacked.leaks_before),
        ("turns with a false fact unmarked", attacked.false, attacked.false_before),
    ]
    for label, now, before in rows:
        print(f"| {label} | {share(now, attacked.turns)} | {share(before, attacked.turns)} |")
    print(
        f"| conversations with a program argument from data | "
        f"{share(attacked.data_arguments, attacked.cases)} | |"
    )
    print(
        f"| conversations with a write the user did not ask | "
        f"{share(attacked.unwanted_writes, attacked.cases)} | |"
    )
    print(
        f"| turns showing the data, quoted with its author, movements listed | "
        f"{share(attacked.quoted_turns, attacked.showing_turns)} | |"
    )
    print("\n| utility (harmless data, truthful model) | now |")
    print("|---|---:|")
    print(f"| tasks done and answered truly | {share(benign.true_cases, benign.cases)} |")
    print(
        f"| ... with the model's prose standing whole | {share(benign.whole_prose, benign.cases)} |"
    )
    print(f"| sentences withheld | {benign.withheld} |")


def main() -> None:
    fake = FakeLLM()
    try:
        with Sluice("memory://") as sluice:
            seed(sluice.gateway)
            figures = sizes(sluice)
            rows = [
                run(sluice, fake, scenario, catalog) for catalog in FORMS for scenario in SCENARIOS
            ]
        attacked = injection(fake, table.CASES)
        benign = injection(fake, table.BENIGN)
    finally:
        fake.close()
    print("Context sizes (tokens estimated as bytes / 4)\n")
    print(f"| {'text':<48} | {'bytes':>6} | {'~tokens':>7} |")
    print(f"|{'-' * 50}|{'-' * 7}:|{'-' * 8}:|")
    for label, size in figures:
        print(f"| {label:<48} | {size:>6} | {tokens(size):>7} |")
    directory, sheets = figures[0][1], figures[2][1]
    ratio = f"{directory / sheets:.0%} of all sheets ({sheets / directory:.1f}x smaller)"
    print(f"\nThe directory sent on every call is {ratio}.")
    print("\nModel calls per request (scripted replies on the fake server)\n")
    head = (
        "scenario",
        "catalog",
        "outcome",
        "planner",
        "answerer",
        "total",
        "bytes sent",
        "~tokens",
    )
    print("| " + " | ".join(head) + " |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for row in rows:
        total = row["planner"] + row["answerer"]
        print(
            f"| {row['scenario']} | {row['catalog']} | {row['outcome']} | {row['planner']} "
            f"| {row['answerer']} | {total} | {row['bytes']} | {tokens(row['bytes'])} |"
        )
    for catalog in FORMS:
        mine = [r for r in rows if r["catalog"] == catalog]
        calls = sum(r["planner"] + r["answerer"] for r in mine) / len(mine)
        sent = sum(r["bytes"] for r in mine)
        print(
            f"\n{catalog}: {calls:.2f} model calls per request, {tokens(sent)} ~tokens sent in all"
        )
    print(
        "\nbytes sent: the request bodies of all the scenario's model calls (the whole "
        "context is sent on every call: a find_actions round repeats it)."
    )
    show_injection(attacked, benign)


def _config(fake: FakeLLM, catalog: CatalogForm = "directory") -> AgentConfig:
    return AgentConfig(
        model="fake-model", base_url=fake.url, api_key="sk-bench", max_retries=0, catalog=catalog
    )


def _who(sluice: Sluice, name: str) -> PrincipalView:
    found = principals.find(sluice.ledger, name)
    assert found is not None, name
    return found


def _prompt(sluice: Sluice, principal: PrincipalView) -> str:
    return planner_prompt(principal, sluice.gateway.directory(principal))


def _stubs_prompt(sluice: Sluice, principal: PrincipalView) -> str:
    return planner_stubs_prompt(principal, sluice.gateway.catalog_for(principal))


if __name__ == "__main__":
    main()
