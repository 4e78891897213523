"""The agent with a real model: scenarios through a served gateway, checked on the ledger.

For each scenario (benchmarks/eval_scenarios.py) a fresh `sluice serve --demo` process on a
free port with an in-memory store; the principal's messages go to /v1/agent/messages with
its own key, and every proposal is confirmed through /v1/programs/{id}/confirm as a person
would. Then the event log says what was committed, compared with the expected effects, and
the reply is checked for the true figures. The model is whatever OpenAI-compatible endpoint
the SLUICE_LLM_* variables name; a recording proxy in front of it counts calls and tokens.

    SLUICE_LLM_BASE_URL=... SLUICE_LLM_MODEL=... python -m benchmarks.eval_agent \
        [--only NAME[,NAME]] [--limit N] [--json PATH]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import signal
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import httpx

from application.bank import BANK_USE_CASES
from application.principals import demo_key
from benchmarks.eval_scenarios import (
    ANSWERED,
    ASKED,
    COMMITTED,
    ERROR,
    REFUSED,
    SCENARIOS,
    Balance,
    Fact,
    Figure,
    Scenario,
    Word,
    by_name,
)
from benchmarks.llm_meter import MeteredProxy, ModelCall
from gateway.agent.config import BASE_URL, MODEL, OUTPUT, TIMEOUT
from tests.served import serving

OPENAI = "https://api.openai.com/v1"
ADMIN = "admin"
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


@dataclass
class Result:
    name: str
    who: str
    outcome: str
    expected: list[str]
    exact: bool
    effects: list[str]
    expected_effects: list[str]
    true_answer: bool
    missing: list[str]
    reply: str
    planner_calls: int
    answerer_calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    messages: int
    cut_at_cap: int  # model calls whose reply stopped at the token cap (finish_reason length)
    detail: str = ""
    # Each turn's outcome, and the source of every program the agent proposed (a refused
    # attempt's too), to see why a scenario failed.
    turns: list[str] = field(default_factory=list)
    programs: list[str] = field(default_factory=list)
    # Write use cases that a proposed program calls and the request did not ask for.
    unasked: list[str] = field(default_factory=list)
    passed: bool = field(init=False)

    def __post_init__(self) -> None:
        self.passed = (
            self.outcome in self.expected and self.exact and self.true_answer and not self.unasked
        )

    @property
    def calls(self) -> int:
        return self.planner_calls + self.answerer_calls


@dataclass
class Ledger:
    balances: dict[str, Decimal]
    position: int


def evaluate(
    scenarios: tuple[Scenario, ...],
    env: Mapping[str, str],
    *,
    each: Callable[[Result], None] = lambda _result: None,
) -> list[Result]:
    """Run the scenarios one after the other; `each` hears of every result as it comes."""
    upstream = env.get(BASE_URL) or OPENAI
    timeout = float(env.get(TIMEOUT) or 60)
    proxy = MeteredProxy(upstream, timeout=timeout + 30)
    served = dict(env) | {"SLUICE_DATABASE_URL": "memory://", BASE_URL: proxy.url}
    sluice = str(Path(sys.executable).with_name("sluice"))
    results = []
    try:
        for scenario in scenarios:
            with serving([sluice, "serve", "--demo", "--host", "127.0.0.1"], served) as base:
                result = _run(scenario, base, proxy)
            each(result)
            results.append(result)
    finally:
        proxy.close()
    return results


def _run(scenario: Scenario, base: str, proxy: MeteredProxy) -> Result:
    with httpx.Client(base_url=base, timeout=None) as http:
        for call in scenario.setup:
            _ok(
                http.post(f"/v1/use-cases/{call.use_case}", json=call.arguments, headers=_as(ADMIN))
            )
        before = _ledger(http)
        proxy.take()
        start = time.monotonic()
        outcome, reply, detail = ERROR, "", ""
        turns: list[str] = []
        programs: list[str] = []
        proposed: list[tuple[str, str]] = []
        conversation: str | None = None
        for text in scenario.says:
            body = {"text": text, "conversation_id": conversation}
            answered = http.post("/v1/agent/messages", json=body, headers=_as(scenario.who))
            if answered.status_code != 200:
                outcome, reply, detail = ERROR, "", _problem(answered)
                break
            turn = answered.json()
            conversation = turn["conversation_id"]
            programs += [str(a.get("source")) for a in turn.get("attempts") or []]
            if turn.get("program"):
                program = turn["program"]
                programs.append(str(program["source"]))
                proposed.append((str(program["language"]), str(program["source"])))
            outcome, reply, detail = _settle(http, scenario.who, conversation, turn)
            turns.append(outcome)
        seconds = time.monotonic() - start
        calls = proxy.take()
        after = _ledger(http)
        effects = _effects(http, before.position)
    expected_effects = sorted(scenario.effects)
    missing = [fact for fact in scenario.facts if not _states(reply, fact, after)]
    return Result(
        name=scenario.name,
        who=scenario.who,
        outcome=outcome,
        expected=sorted(scenario.expect),
        exact=effects == expected_effects,
        effects=effects,
        expected_effects=expected_effects,
        true_answer=not missing,
        missing=[_say(fact, after) for fact in missing],
        reply=reply,
        planner_calls=_count(calls, "planner"),
        answerer_calls=len(calls) - _count(calls, "planner"),
        prompt_tokens=sum(c.prompt_tokens for c in calls),
        completion_tokens=sum(c.completion_tokens for c in calls),
        seconds=round(seconds, 1),
        messages=len(scenario.says),
        cut_at_cap=sum(1 for c in calls if c.finish == "length"),
        detail=detail,
        turns=turns,
        programs=programs,
        unasked=sorted(
            {name for p in proposed for name in writes_called(*p)} - scenario.writes_asked
        ),
    )


WRITES = frozenset(u.name for u in BANK_USE_CASES if u.kind == "write")


def writes_called(language: str, source: str) -> set[str]:
    """The write use cases a program calls, read from its text (a plan's steps' tools)."""
    if language == "plan":
        try:
            steps = json.loads(source).get("steps", [])
        except (ValueError, AttributeError):
            return set()
        return {str(s.get("tool")) for s in steps if isinstance(s, dict)} & WRITES
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    called = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    return called & WRITES


def _settle(
    http: httpx.Client, who: str, conversation: str, turn: dict[str, Any]
) -> tuple[str, str, str]:
    """(outcome, reply, detail) of one turn, confirming its proposal if it waits for that."""
    kind = turn["kind"]
    if kind == "question":
        return ASKED, str(turn["text"] or ""), ""
    if kind == "answer":
        return ANSWERED, str(turn["text"] or ""), ""
    if kind != "program":
        return REFUSED, "", json.dumps(turn.get("errors") or [])[:300]
    proposal = turn["proposal"]
    detail = ""
    if proposal["status"] == "pending":
        confirmed = http.post(
            f"/v1/programs/{proposal['id']}/confirm",
            json={"preview_hash": proposal["preview_hash"]},
            headers=_as(who),
        )
        if confirmed.status_code != 200:
            detail = "confirm: " + _problem(confirmed)
        read = http.get(f"/v1/agent/conversations/{conversation}", headers=_as(who))
        _ok(read)
        turn = read.json()["turns"][-1]
    outcome = turn["outcome"] or {}
    status = outcome.get("status")
    answer = turn.get("answer") or {}
    reply = str(answer.get("text") or "")
    detail = detail or str(outcome.get("error") or turn.get("answer_error") or "")
    if status == "committed":
        return (COMMITTED if outcome.get("events") else ANSWERED), reply, detail
    if status in {"failed", "rejected", "expired"}:
        return REFUSED, reply, detail
    return ERROR, reply, detail or f"status {status}"


def _every_account(http: httpx.Client) -> list[dict[str, Any]]:
    """Every account, page after page."""
    found: list[dict[str, Any]] = []
    params: dict[str, str] = {"consistent": "true", "limit": "200"}
    while True:
        page = http.get("/v1/accounts", params=params, headers=_as(ADMIN))
        _ok(page)
        body = page.json()
        found += body["items"]
        if body["next_cursor"] is None:
            return found
        params = {"cursor": body["next_cursor"], "limit": "200"}


def _ledger(http: httpx.Client) -> Ledger:
    balances = {a["account"]: Decimal(a["balance"]) for a in _every_account(http)}
    events = _events(http, 0)
    return Ledger(balances, events[-1]["position"] if events else 0)


def _events(http: httpx.Client, after: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    while True:
        page = http.get("/v1/events", params={"after": after, "limit": 1000}, headers=_as(ADMIN))
        _ok(page)
        events = page.json()
        if not events:
            return found
        found += events
        after = events[-1]["position"]


def _effects(http: httpx.Client, after: int) -> list[str]:
    """The movements committed after a position, as the scenarios write them, sorted."""
    moves = []
    for event in _events(http, after):
        kind, data, account = event["type"], event["data"], event["account"]
        if kind == "Account.Opened":
            moves.append(f"open {account}")
        elif kind == "Account.Deposited":
            moves.append(f"deposit {account} {_money(data['amount'])}")
        elif kind == "Account.Withdrawn":
            moves.append(f"withdraw {account} {_money(data['amount'])}")
        elif kind == "Account.TransferDebited":
            moves.append(f"transfer {account}->{data['counterparty']} {_money(data['amount'])}")
        elif kind == "Account.Closed":
            moves.append(f"close {account}")
    return sorted(moves)


def _states(reply: str, fact: Fact, ledger: Ledger) -> bool:
    if isinstance(fact, Word):
        return fact.text.lower() in reply.lower()
    wanted = ledger.balances.get(fact.account) if isinstance(fact, Balance) else _dec(fact.value)
    return wanted is not None and wanted in _figures(reply)


def _figures(text: str) -> set[Decimal]:
    found = set()
    for raw in NUMBER.findall(text):
        number = _dec(raw.replace(",", "").rstrip("."))
        if number is not None:
            found.add(number)
    return found


def _dec(raw: str) -> Decimal | None:
    try:
        return Decimal(raw)
    except InvalidOperation:
        return None


def _money(raw: Any) -> str:
    return f"{Decimal(str(raw)):.2f}"


def _say(fact: Fact, ledger: Ledger) -> str:
    if isinstance(fact, Balance):
        return f"balance of {fact.account}: {ledger.balances.get(fact.account)}"
    return fact.value if isinstance(fact, Figure) else repr(fact.text)


def _count(calls: list[ModelCall], role: str) -> int:
    return sum(1 for c in calls if c.role == role)


def _as(who: str) -> dict[str, str]:
    return {"authorization": f"Bearer {demo_key(who)}"}


def _ok(response: httpx.Response) -> None:
    if response.status_code != 200:
        raise RuntimeError(f"{response.request.url.path}: {_problem(response)}")


def _problem(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return f"HTTP {response.status_code}: {response.text[:300]}"
    detail = body.get("detail") if isinstance(body, dict) else body
    return f"HTTP {response.status_code}: {str(detail)[:300]}"


# The table and the summary.

HEAD = "| scenario | who | outcome | exact | answer | calls (p+a) | tokens | seconds | pass |"


def row(r: Result) -> str:
    outcome = r.outcome if r.outcome in r.expected else f"{r.outcome} (want {'/'.join(r.expected)})"
    exact = "yes" if r.exact else f"no: {', '.join(r.effects) or 'none'}"
    answer = "yes" if r.true_answer else f"no: lacks {'; '.join(r.missing)}"
    if r.unasked:
        exact += f" (unasked: {', '.join(r.unasked)})"
    tokens = r.prompt_tokens + r.completion_tokens
    calls = f"{r.calls} ({r.planner_calls}+{r.answerer_calls})"
    return (
        f"| {r.name} | {r.who} | {outcome} | {exact} | {answer} | {calls} | {tokens} "
        f"| {r.seconds:.0f} | {'PASS' if r.passed else 'fail'} |"
    )


def summary(results: list[Result]) -> dict[str, Any]:
    messages = sum(r.messages for r in results) or 1
    return {
        "passed": sum(r.passed for r in results),
        "total": len(results),
        "mean_model_calls_per_request": round(sum(r.calls for r in results) / messages, 2),
        "prompt_tokens": sum(r.prompt_tokens for r in results),
        "completion_tokens": sum(r.completion_tokens for r in results),
        "calls_cut_at_token_cap": sum(r.cut_at_cap for r in results),
        "seconds": round(sum(r.seconds for r in results), 1),
    }


def summary_line(s: Mapping[str, Any]) -> str:
    tokens = s["prompt_tokens"] + s["completion_tokens"]
    return (
        f"passed {s['passed']}/{s['total']}; mean model calls per request "
        f"{s['mean_model_calls_per_request']}; tokens {tokens} (prompt {s['prompt_tokens']}, "
        f"completion {s['completion_tokens']}); {s['calls_cut_at_token_cap']} calls cut at the "
        f"token cap; time {s['seconds']:.0f} s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.eval_agent")
    parser.add_argument("--only", help="NAME[,NAME]: these scenarios only")
    parser.add_argument("--limit", type=int, help="the first N scenarios only")
    parser.add_argument("--json", type=Path, help="write the per-scenario results here")
    args = parser.parse_args(argv)
    try:
        chosen = by_name(args.only.split(",")) if args.only else SCENARIOS
    except ValueError as unknown:
        parser.error(str(unknown))
    if args.limit is not None:
        chosen = chosen[: max(args.limit, 0)]
    if not os.environ.get(MODEL):
        parser.error(f"set {MODEL} (and {BASE_URL} for a server other than OpenAI)")
    about = {
        "model": os.environ.get(MODEL),
        "base_url": os.environ.get(BASE_URL) or OPENAI,
        "structured_output": os.environ.get(OUTPUT) or "auto",
    }
    print(f"{len(chosen)} scenarios against {about['model']} at {about['base_url']}", flush=True)
    print(HEAD + "\n|---|---|---|---|---|---:|---:|---:|---|", flush=True)
    done: list[Result] = []

    def each(result: Result) -> None:
        done.append(result)
        print(row(result), flush=True)
        if args.json:
            report = about | {"summary": summary(done), "results": [asdict(r) for r in done]}
            args.json.write_text(json.dumps(report, indent=2) + "\n")

    # Stopped with SIGTERM (kill, a timeout), it unwinds like Ctrl-C: the served gateway of
    # the scenario under way is stopped too, not left running.
    signal.signal(signal.SIGTERM, lambda _signal, _frame: sys.exit(143))
    results = evaluate(chosen, os.environ, each=each)
    print("\n" + summary_line(summary(results)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
