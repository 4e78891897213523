"""Hostile input through the real interfaces: text that is not printable, amounts past the
maximum or past Decimal's precision, money that enters an account without being counted,
programs too deep to parse and results too long to write.

Each case goes to a served gateway (HTTP, /mcp) or to the `sluice` CLI as a process, on
SQLite and on Postgres. Each must be refused with a clear 4xx (or a failed run) naming the
field and the reason, never a 5xx nor a traceback; a refused request writes nothing at all,
and a refused program writes no account event (only its failed run, for the audit). After
the whole table the read models answer consistent reads and `sluice audit verify` passes.
"""
# ruff: noqa: E501 (the table keeps one hostile case per line)

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from fastapi.testclient import TestClient

from application.ledger import Ledger
from application.store_config import eventsourcing_env
from domain import money
from domain.account import Account
from gateway.bootstrap import Sluice
from gateway.core.policy.caps import Caps
from gateway.demo import seed
from gateway.interfaces.http.app import create_app
from tests.served import serving
from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")
MAX = "1000000000000.00"
BIG = "9" * 5000
DEEP_UNARY = "-" * 3000 + "1"
LONG_SUM = "+".join(["1"] * 4000)
DEEP_ATTRIBUTES = "x = [1]\nx" + ".a" * 3000
PARSER_OVERFLOW = "-" * 19_000 + "1"


def pay(memo: str) -> dict[str, Any]:
    return {"payer": "alice", "payee": "bob", "amount": 1, "memo": memo}


def plan(*steps: dict[str, Any]) -> str:
    return json.dumps({"steps": list(steps)})


# (name, interface, input, (status, kind), a fragment of the message)
# status: the HTTP status for HTTP interfaces, the exit code for the CLI, 0 for an MCP tool error.
Case = tuple[str, str, dict[str, Any], tuple[int, str], str]
CASES: list[Case] = [
    # 1. Text a caller gives is printable, in every field that takes it.
    ("memo with NUL", "call", {"as": "alice", "use_case": "transfer", "arguments": pay("a\x00b")}, (400, "bad-request"), "memo: the control character U+0000 at character 2 is not allowed"),
    ("memo with ESC", "call", {"as": "alice", "use_case": "transfer", "arguments": pay("\x1b[2J")}, (400, "bad-request"), "memo: the control character U+001B"),
    ("memo with C1 CSI", "call", {"as": "alice", "use_case": "transfer", "arguments": pay("a\x9bb")}, (400, "bad-request"), "memo: the control character U+009B"),
    ("memo with DEL", "call", {"as": "alice", "use_case": "transfer", "arguments": pay("a\x7f")}, (400, "bad-request"), "memo: the control character U+007F"),
    ("memo with a line break", "call", {"as": "alice", "use_case": "transfer", "arguments": pay("rent\nwould append 0 events")}, (400, "bad-request"), "memo: the control character U+000A"),
    ("memo with a bidi override", "call", {"as": "alice", "use_case": "transfer", "arguments": pay("\u202etxt.exe")}, (400, "bad-request"), "memo: the bidi control U+202E"),
    ("memo with a bidi isolate", "call", {"as": "alice", "use_case": "transfer", "arguments": pay("a\u2066b")}, (400, "bad-request"), "memo: the bidi control U+2066"),
    ("memo with a lone surrogate", "call-body", {"as": "alice", "use_case": "transfer", "body": b'{"payer": "alice", "payee": "bob", "amount": 1, "memo": "a\\ud800"}'}, (400, "bad-request"), "memo: the lone surrogate U+D800"),
    ("memo with a line separator", "call", {"as": "alice", "use_case": "transfer", "arguments": pay("a\u2028b")}, (400, "bad-request"), "memo: the line separator U+2028"),
    ("memo too long", "call", {"as": "alice", "use_case": "transfer", "arguments": pay("m" * 141)}, (400, "bad-request"), "memo: string should have at most 140 characters"),
    ("deposit memo with NUL", "call", {"as": "teller", "use_case": "deposit", "arguments": {"account": "bob", "amount": 1, "memo": "\x00"}}, (400, "bad-request"), "memo: the control character U+0000"),
    ("withdraw memo with ESC", "call", {"as": "alice", "use_case": "withdraw", "arguments": {"account": "alice", "amount": 1, "memo": "\x1b]0;x\x07"}}, (400, "bad-request"), "memo: the control character U+001B"),
    ("owner with NUL", "call", {"as": "teller", "use_case": "open_account", "arguments": {"account": "nul1", "owner": "x\x00y"}}, (400, "bad-request"), "owner: the control character U+0000"),
    ("owner with a bidi override", "call", {"as": "teller", "use_case": "open_account", "arguments": {"account": "bidi1", "owner": "x\u202ey"}}, (400, "bad-request"), "owner: the bidi control U+202E"),
    ("owner with a tab", "call", {"as": "teller", "use_case": "open_account", "arguments": {"account": "tab1", "owner": "x\ty"}}, (400, "bad-request"), "owner: the control character U+0009"),
    ("owner too long", "call", {"as": "teller", "use_case": "open_account", "arguments": {"account": "long1", "owner": "o" * 101}}, (400, "bad-request"), "owner: string should have at most 100 characters"),
    ("owner filter with NUL", "call", {"as": "teller", "use_case": "list_accounts", "arguments": {"owner": "a\x00b"}}, (400, "bad-request"), "owner: the control character U+0000"),
    ("owner filter too long", "call", {"as": "teller", "use_case": "list_accounts", "arguments": {"owner": "o" * 101}}, (400, "bad-request"), "owner: string should have at most 100 characters"),
    ("account name with NUL", "call", {"as": "teller", "use_case": "open_account", "arguments": {"account": "a\x00b", "owner": "A"}}, (400, "bad-request"), "account: the control character U+0000 at character 2 is not allowed"),
    ("account name with a newline", "call", {"as": "teller", "use_case": "deposit", "arguments": {"account": "bob\n", "amount": 1}}, (400, "bad-request"), "account: the control character U+000A at character 4 is not allowed"),
    ("account name in capitals", "call", {"as": "teller", "use_case": "open_account", "arguments": {"account": "Dan", "owner": "Dan"}}, (400, "bad-request"), "account: 'Dan' is not an account id (1 to 32 lowercase letters, digits, - or _)"),
    ("account name with NUL quoted by the ownership check", "program", {"as": "alice", "source": 'transfer(payer="a\\x00b", payee="bob", amount=1)'}, (422, "refused"), "transfer: payer: the control character U+0000 at character 2 is not allowed"),
    ("payee with NUL in a program", "program", {"as": "alice", "source": 'transfer(payer="alice", payee="b\\x00", amount=1)'}, (422, "refused"), "transfer: payee: the control character U+0000 at character 2 is not allowed"),
    ("memo with NUL in a program", "program", {"as": "teller", "source": 'deposit(account="bob", amount=1, memo="a\\x00b")'}, (422, "refused"), "deposit: memo: the control character U+0000"),
    ("computed memo with ESC in a program", "program", {"as": "teller", "source": 'm = "a" + "\\x1b"\ndeposit(account="bob", amount=1, memo=m)'}, (422, "refused"), "deposit: memo: the control character U+001B"),
    ("owner with a bidi override in a program", "program", {"as": "teller", "source": 'open_account(account="evil", owner="\\u202eevil")'}, (422, "refused"), "open_account: owner: the bidi control U+202E"),
    ("memo with NUL in a plan", "plan", {"as": "teller", "plan": plan({"tool": "deposit", "args": {"account": "bob", "amount": 1, "memo": "a\x00b"}})}, (422, "refused"), "deposit: memo: the control character U+0000"),
    ("owner with NUL in a plan", "plan", {"as": "teller", "plan": plan({"tool": "open_account", "args": {"account": "p1", "owner": "\x00"}})}, (422, "refused"), "open_account: owner: the control character U+0000"),
    ("account with NUL in a plan", "plan", {"as": "alice", "plan": plan({"tool": "transfer", "args": {"payer": "alice", "payee": "b\x00", "amount": 1}})}, (422, "invalid-program"), "does not match"),
    ("program source with NUL", "program", {"as": "alice", "source": "x = 1\x00"}, (422, "invalid-program"), "source: the control character U+0000 is not allowed; write it as an escape in a string (line 1, column 6)"),
    ("program source with a bidi override", "program", {"as": "alice", "source": 'x = 1\nok = "\u202e" # admin'}, (422, "invalid-program"), "source: the bidi control U+202E is not allowed; write it as an escape in a string (line 2, column 7)"),
    ("program source with ESC", "program", {"as": "alice", "source": 'print("\x1b[2J")'}, (422, "invalid-program"), "source: the control character U+001B is not allowed; write it as an escape in a string (line 1, column 8)"),
    ("plan text with a bidi override", "plan", {"as": "alice", "plan": '{"steps": [{"tool": "get_balance", "args": {"account": "alice"}}]}\u202e'}, (422, "invalid-program"), "source: the bidi control U+202E is not allowed"),
    ("request text with NUL", "program", {"as": "alice", "source": 'get_balance(account="alice")', "request": "balance\x00"}, (400, "bad-request"), "request: the control character U+0000 at character 8 is not allowed"),
    ("request text with a bidi override", "program", {"as": "alice", "source": 'get_balance(account="alice")', "request": "\u202ebalance"}, (400, "bad-request"), "request: the bidi control U+202E"),
    ("request text too long", "program", {"as": "alice", "source": 'get_balance(account="alice")', "request": "r" * 4001}, (422, "invalid-request"), "request: String should have at most 4000 characters"),
    ("agent message with NUL", "agent", {"as": "alice", "text": "pay bob\x00"}, (400, "bad-request"), "text: the control character U+0000 at character 8 is not allowed"),
    ("agent message with a bidi override", "agent", {"as": "alice", "text": "pay \u202ebob"}, (400, "bad-request"), "text: the bidi control U+202E"),
    ("MCP program with a NUL memo", "mcp", {"key": "sk-demo-teller", "source": 'deposit(account="bob", amount=1, memo="\\x00")'}, (0, "refused"), "deposit: memo: the control character U+0000"),
    ("MCP program source with ESC", "mcp", {"key": "sk-demo-alice", "source": 'print("\x1b[2J")'}, (0, "invalid-program"), "source: the control character U+001B is not allowed"),
    ("sluice mcp program with a NUL memo", "mcp-stdio", {"key": "sk-demo-teller", "source": 'deposit(account="bob", amount=1, memo="\\x00")'}, (0, "refused"), "deposit: memo: the control character U+0000"),
    ("sluice mcp program with a bidi owner", "mcp-stdio", {"key": "sk-demo-teller", "source": 'open_account(account="evil2", owner="\\u202eevil")'}, (0, "refused"), "open_account: owner: the bidi control U+202E"),
    ("sluice mcp program source with ESC", "mcp-stdio", {"key": "sk-demo-alice", "source": 'print("\x1b[2J")'}, (0, "invalid-program"), "source: the control character U+001B is not allowed"),
    ("CLI program with a NUL memo", "cli-run", {"as": "teller", "language": "python", "source": 'deposit(account="bob", amount=1, memo="a\\x00b")'}, (1, "failed"), "deposit: memo: the control character U+0000"),
    ("account path with NUL", "get", {"as": "teller", "path": "/v1/accounts/a%00b"}, (404, "not-found"), r"no account: 'a\x00b' is not an account id"),
    ("statement path with ESC", "get", {"as": "teller", "path": "/v1/accounts/%1B%5B2J/statement"}, (404, "not-found"), r"no account: '\x1b[2J' is not an account id"),
    ("use case name with ESC", "call", {"as": "alice", "use_case": "%1B%5B2J", "arguments": {}}, (404, "not-found"), r"no use case '\x1b[2J'"),
    ("CLI principal owning an account with ESC", "cli-admin", {"args": ["principal", "add", "eve", "--role", "customer", "--owns", "bob\x1b[2J"]}, (2, "usage"), r"owns: 'bob\x1b[2J' is not an account id"),
    ("CLI call with a NUL owner", "cli-call", {"as": "teller", "use_case": "open_account", "pairs": ["account=cli1", 'owner="x\\u0000y"']}, (1, "bad-request"), "owner: the control character U+0000"),
    # 2. One maximum amount, 1000000000000.00, for every use case, program and plan.
    ("initial deposit 10^19", "call", {"as": "teller", "use_case": "open_account", "arguments": {"account": "big1", "owner": "Big", "initial_deposit": 10**19}}, (400, "bad-request"), f"initial_deposit: amount 10000000000000000000 is over the maximum of {MAX}"),
    ("deposit one cent over the maximum", "call", {"as": "teller", "use_case": "deposit", "arguments": {"account": "bob", "amount": "1000000000000.01"}}, (400, "bad-request"), f"amount 1000000000000.01 is over the maximum of {MAX}"),
    ("withdraw over the maximum", "call", {"as": "alice", "use_case": "withdraw", "arguments": {"account": "alice", "amount": 10**13}}, (400, "bad-request"), f"is over the maximum of {MAX}"),
    ("transfer over the maximum", "call", {"as": "alice", "use_case": "transfer", "arguments": {"payer": "alice", "payee": "bob", "amount": 10**13}}, (400, "bad-request"), f"is over the maximum of {MAX}"),
    ("initial deposit 10^19 in a program", "program", {"as": "teller", "source": 'open_account(account="big2", owner="Big", initial_deposit=10**19)'}, (422, "refused"), f"is over the maximum of {MAX}"),
    ("deposit 10^13 in a program", "program", {"as": "teller", "source": 'deposit(account="bob", amount=10**13)'}, (422, "refused"), f"amount 10000000000000 is over the maximum of {MAX}"),
    ("initial deposit 10^19 in a plan", "plan", {"as": "teller", "plan": plan({"tool": "open_account", "args": {"account": "big3", "owner": "Big", "initial_deposit": 10**19}})}, (422, "invalid-program"), "is greater than the maximum of 1000000000000"),
    ("transfer 10^13 in a plan", "plan", {"as": "alice", "plan": plan({"tool": "transfer", "args": {"payer": "alice", "payee": "bob", "amount": 10**13}})}, (422, "invalid-program"), "is greater than the maximum of 1000000000000"),
    # 3. The money open_account brings in counts toward the cap on money moved.
    ("teller opens with 50000.00", "call", {"as": "teller", "use_case": "open_account", "arguments": {"account": "rich", "owner": "Rich", "initial_deposit": 50000}}, (422, "cap-exceeded"), "cap max_amount_per_program: moving 50000.00 more would bring the program to 50000.00, over 10000.00"),
    ("five openings of 9999.99 in a program", "program", {"as": "teller", "source": 'for i in range(5):\n    open_account(account="five" + str(i), owner="Five", initial_deposit=9999.99)'}, (422, "cap-exceeded"), "would bring the program to 19999.98, over 10000.00 (line 2, column 5)"),
    ("two openings of 6000 in a plan", "plan", {"as": "teller", "plan": plan({"tool": "open_account", "args": {"account": "six1", "owner": "Six", "initial_deposit": 6000}}, {"tool": "open_account", "args": {"account": "six2", "owner": "Six", "initial_deposit": 6000}})}, (422, "cap-exceeded"), "would bring the program to 12000.00, over 10000.00 (step 2)"),
    ("an opening and a deposit in a program", "program", {"as": "teller", "source": 'open_account(account="mix", owner="Mix", initial_deposit=6000)\ndeposit(account="bob", amount=6000)'}, (422, "cap-exceeded"), "would bring the program to 12000.00, over 10000.00 (line 2, column 1)"),
    ("CLI program opening with 50000.00", "cli-run", {"as": "teller", "language": "python", "source": 'open_account(account="clirich", owner="Rich", initial_deposit=50000)'}, (1, "failed"), "cap max_amount_per_program"),
    # 5. Amounts past Decimal's precision, programs too deep to parse, results too long to write.
    ("amount 1e30 as a JSON number", "call", {"as": "teller", "use_case": "deposit", "arguments": {"account": "bob", "amount": 1e30}}, (400, "bad-request"), f"amount 1E+30 is over the maximum of {MAX}"),
    ("amount 1E+26 as text", "call", {"as": "teller", "use_case": "deposit", "arguments": {"account": "bob", "amount": "1E+26"}}, (400, "bad-request"), f"amount 1E+26 is over the maximum of {MAX}"),
    ("amount 1e999999999 as text", "call", {"as": "teller", "use_case": "deposit", "arguments": {"account": "bob", "amount": "1e999999999"}}, (400, "bad-request"), f"amount 1E+999999999 is over the maximum of {MAX}"),
    ("amount of 5000 digits as text", "call", {"as": "teller", "use_case": "deposit", "arguments": {"account": "bob", "amount": BIG}}, (400, "bad-request"), f"amount 99999999999999999999... (5000 digits) is over the maximum of {MAX}"),
    ("initial deposit 1e30", "call", {"as": "teller", "use_case": "open_account", "arguments": {"account": "huge", "owner": "Huge", "initial_deposit": "1e30"}}, (400, "bad-request"), f"is over the maximum of {MAX}"),
    ("amount of 5000 digits as a JSON number", "call-body", {"as": "teller", "use_case": "deposit", "body": b'{"account": "bob", "amount": ' + BIG.encode() + b"}"}, (400, "bad-request"), "the body is not valid JSON: a number has more than 4300 digits"),
    ("amount 1e30 in a program", "program", {"as": "teller", "source": 'deposit(account="bob", amount=1e30)'}, (422, "refused"), f"amount 1E+30 is over the maximum of {MAX}"),
    ("amount 10**30 in a program", "program", {"as": "teller", "source": 'deposit(account="bob", amount=10**30)'}, (422, "refused"), f"is over the maximum of {MAX}"),
    ("amount 10**5000 in a program", "program", {"as": "teller", "source": 'deposit(account="bob", amount=10**5000)'}, (422, "refused"), "(5001 digits) is over the maximum"),
    ("statement limit 10**5000 in a program", "program", {"as": "alice", "source": 'statement(account="alice", limit=10**5000)'}, (422, "refused"), "statement: limit: input should be less than or equal to 100"),
    ("amount 1e30 in a plan", "plan", {"as": "teller", "plan": plan({"tool": "deposit", "args": {"account": "bob", "amount": 1e30}})}, (422, "invalid-program"), "1e+30 is greater than the maximum of 1000000000000"),
    ("amount of 5000 digits in a plan", "plan", {"as": "teller", "plan": '{"steps": [{"tool": "deposit", "args": {"account": "bob", "amount": ' + BIG + "}}]}"}, (422, "invalid-program"), "plan: invalid JSON: a number of 5000 digits is over the limit of 4300 (line 1, column 69)"),
    ("NaN amount in a plan", "plan", {"as": "teller", "plan": '{"steps": [{"tool": "deposit", "args": {"account": "bob", "amount": NaN}}]}'}, (422, "invalid-program"), "plan: invalid JSON: NaN is not a number"),
    ("3000 unary minuses", "program", {"as": "alice", "source": DEEP_UNARY}, (422, "invalid-program"), "syntax error: expressions nested too deeply to check (line 1, column 1)"),
    ("a sum of 4000 terms", "program", {"as": "alice", "source": "x = 1\n" + LONG_SUM}, (422, "invalid-program"), "syntax error: expressions nested too deeply to check (line 2, column 1)"),
    ("3000 attributes in a chain", "program", {"as": "alice", "source": DEEP_ATTRIBUTES}, (422, "invalid-program"), "syntax error: expressions nested too deeply to check (line 2, column 1)"),
    ("19000 unary minuses", "program", {"as": "alice", "source": PARSER_OVERFLOW}, (422, "invalid-program"), "syntax error: expressions nested too deeply to check (line 1, column 1)"),
    ("an integer literal of 5000 digits", "program", {"as": "alice", "source": "x = 1\ny = " + BIG}, (422, "invalid-program"), "syntax error: an integer literal of 5000 digits is over the limit of 4300 (line 2, column 5)"),
    ("a result of 5001 digits", "program", {"as": "alice", "source": "10**5000"}, (422, "cap-exceeded"), "result limit: the result holds an integer of more than 4300 digits"),
    ("a result holding 5001 digits", "program", {"as": "alice", "source": 'b = get_balance(account="alice")\n{"balance": b, "big": [10**5000]}'}, (422, "cap-exceeded"), "result limit: the result holds an integer of more than 4300 digits"),
    ("MCP program of 3000 unary minuses", "mcp", {"key": "sk-demo-alice", "source": DEEP_UNARY}, (0, "invalid-program"), "expressions nested too deeply to check"),
    ("MCP program with a result of 5001 digits", "mcp", {"key": "sk-demo-alice", "source": "10**5000"}, (0, "cap-exceeded"), "result limit"),
    ("sluice mcp program with amount 1e30", "mcp-stdio", {"key": "sk-demo-teller", "source": 'deposit(account="bob", amount=1e30)'}, (0, "refused"), f"amount 1E+30 is over the maximum of {MAX}"),
    ("sluice mcp program of 3000 unary minuses", "mcp-stdio", {"key": "sk-demo-alice", "source": DEEP_UNARY}, (0, "invalid-program"), "expressions nested too deeply to check"),
    ("sluice mcp program with a result of 5001 digits", "mcp-stdio", {"key": "sk-demo-alice", "source": "10**5000"}, (0, "cap-exceeded"), "result limit"),
    ("sluice mcp five openings of 9999.99", "mcp-stdio", {"key": "sk-demo-teller", "source": 'for i in range(5):\n    open_account(account="stdio" + str(i), owner="Five", initial_deposit=9999.99)'}, (0, "cap-exceeded"), "would bring the program to 19999.98, over 10000.00"),
    ("CLI program of 3000 unary minuses", "cli-run", {"as": "alice", "language": "python", "source": DEEP_UNARY}, (1, "failed"), "expressions nested too deeply to check (line 1, column 1)"),
    ("CLI program with a result of 5001 digits", "cli-run", {"as": "alice", "language": "python", "source": "10**5000"}, (1, "failed"), "result limit: the result holds an integer of more than 4300 digits"),
    ("CLI program with amount 1e30", "cli-run", {"as": "teller", "language": "python", "source": 'deposit(account="bob", amount=1e30)'}, (1, "failed"), f"amount 1E+30 is over the maximum of {MAX}"),
    ("CLI plan with amount 1e30", "cli-run", {"as": "teller", "language": "plan", "source": plan({"tool": "deposit", "args": {"account": "bob", "amount": 1e30}})}, (1, "failed"), "is greater than the maximum of 1000000000000"),
    ("CLI call with an amount of 5000 digits", "cli-call", {"as": "teller", "use_case": "deposit", "pairs": ["account=bob", f"amount={BIG}"]}, (1, "bad-request"), "(5000 digits) is over the maximum"),
]  # fmt: skip

HTTP = ("call", "call-body", "program", "plan", "agent", "get")
ACCOUNT_TOPIC_PREFIXES = ("domain.account:", "domain.registry:")
UNPRINTABLE = {chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)]} | set(
    "\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


@dataclass(frozen=True)
class World:
    base: str
    env: dict[str, str]
    url: str
    folder: Path


@dataclass(frozen=True)
class Answer:
    status: int
    kind: str
    message: str
    run_id: str | None = None


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def world(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[World]:
    folder = tmp_path_factory.mktemp(f"hostile-{request.param}")
    with empty_store(request.param, folder) as url:
        env = {
            **os.environ,
            "SLUICE_DATABASE_URL": url,
            "SLUICE_CAP_PROGRAMS_PER_MINUTE": "100000",
            "SLUICE_CAP_REQUESTS_PER_MINUTE": "100000",
        }
        for variable in ("SLUICE_LLM_BASE_URL", "SLUICE_LLM_MODEL", "OPENAI_API_KEY"):
            env.pop(variable, None)
        with serving([SLUICE, "serve", "--demo"], env) as base:
            yield World(base, env, url, folder)


def test_the_table_is_large_and_its_names_are_unique() -> None:
    assert len(CASES) >= 60
    assert len({name for name, *_ in CASES}) == len(CASES)
    assert {interface for _, interface, *_ in CASES} == {
        "call", "call-body", "program", "plan", "agent", "get", "mcp", "mcp-stdio", "cli-run",
        "cli-call", "cli-admin",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("interface", "given", "expected", "fragment"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_hostile_input_is_refused_clearly_and_changes_nothing(
    world: World, interface: str, given: dict[str, Any], expected: tuple[int, str], fragment: str
) -> None:
    before = head(world)

    answer = ask(world, interface, given)

    assert (answer.status, answer.kind) == expected, answer
    assert fragment in answer.message, answer.message
    assert not UNPRINTABLE & set(answer.message), answer.message
    assert "Traceback" not in answer.message
    written = topics_after(world, before)
    assert not [t for t in written if t.startswith(ACCOUNT_TOPIC_PREFIXES)], written
    if expected[1] in ("bad-request", "invalid-request") or (
        interface in HTTP and answer.run_id is None
    ):
        assert written == [], f"a refusal with no run wrote {written}"
    if answer.run_id is not None:
        stored = run_error(world, given, answer.run_id)
        assert not UNPRINTABLE & set(stored), f"the run stored {stored!r}"


def test_after_the_table_the_read_models_and_the_audit_hold(world: World) -> None:
    teller = {"Authorization": "Bearer sk-demo-teller"}
    with httpx.Client(base_url=world.base, headers=teller, timeout=60) as client:
        accounts = client.get("/v1/accounts", params={"consistent": "true"})
        assert accounts.status_code == 200, accounts.text
        names = {row["account"] for row in accounts.json()["items"]}
        # No hostile case opened an account; the printable one below may have.
        assert names <= {"alice", "bob", "carla", "uni"}, names
        for name in names:
            read = client.get(f"/v1/accounts/{name}/statement", params={"consistent": "true"})
            assert read.status_code == 200, read.text
    verified = subprocess.run(
        [SLUICE, "audit", "verify"], env=world.env, capture_output=True, text=True, timeout=120, check=False
    )  # fmt: skip
    assert verified.returncode == 0, verified.stdout + verified.stderr


# The interfaces.


def ask(world: World, interface: str, given: dict[str, Any]) -> Answer:
    if interface in HTTP:
        return ask_http(world, interface, given)
    if interface in ("mcp", "mcp-stdio"):
        return anyio.run(ask_mcp, world, interface, given)
    if interface == "cli-run":
        return ask_cli_run(world, given)
    if interface == "cli-admin":
        return ask_cli_admin(world, given)
    return ask_cli_call(world, given)


def ask_http(world: World, interface: str, given: dict[str, Any]) -> Answer:
    headers = {"Authorization": f"Bearer sk-demo-{given['as']}"}
    with httpx.Client(base_url=world.base, headers=headers, timeout=60) as client:
        if interface == "call":
            response = client.post(f"/v1/use-cases/{given['use_case']}", json=given["arguments"])
        elif interface == "call-body":
            response = client.post(
                f"/v1/use-cases/{given['use_case']}",
                content=given["body"],
                headers={"Content-Type": "application/json"},
            )
        elif interface == "get":
            response = client.get(given["path"])
        elif interface == "agent":
            response = client.post("/v1/agent/messages", json={"text": given["text"]})
        else:
            body = {
                "language": "python" if interface == "program" else "plan",
                "source": given["source"] if interface == "program" else given["plan"],
            }
            if "request" in given:
                body["request"] = given["request"]
            response = client.post("/v1/programs", json=body)
            if response.status_code == 201:  # it passed every check: leave it pending
                client.post(f"/v1/programs/{response.json()['id']}/reject")
    assert response.status_code < 500, response.text
    problem = response.json()
    if response.is_success:
        return Answer(response.status_code, "", json.dumps(problem))
    kind = str(problem.get("type", "")).removeprefix("urn:sluice:problem:")
    return Answer(response.status_code, kind, str(problem.get("detail")), problem.get("run_id"))


async def ask_mcp(world: World, interface: str, given: dict[str, Any]) -> Answer:
    """/mcp on the served gateway, or `sluice mcp` (stdio) as a process on the same store."""
    from tests.mcp.support import Target, connect
    from tests.mcp.support import text as tool_text

    if interface == "mcp-stdio":
        target = Target("stdio", world.env)
    else:
        target = Target("http", world.env, world.base)
    async with connect(target, given["key"]) as client:
        result = await client.call_tool(
            "propose_program", {"language": "python", "source": given["source"]}
        )
    said = tool_text(result)
    if not result.is_error:
        return Answer(200, "", said)
    said = said.removeprefix("Error executing tool propose_program: ")
    kind, _, message = said.partition(": ")
    return Answer(0, kind, message)


def ask_cli_run(world: World, given: dict[str, Any]) -> Answer:
    program = world.folder / "program.txt"
    program.write_text(given["source"], encoding="utf-8")
    done = subprocess.run(
        [SLUICE, "run", str(program), "--as", given["as"], "--language", given["language"], "--json"],
        env=world.env, capture_output=True, text=True, timeout=120, check=False,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    outcome = json.loads(done.stdout)  # one JSON object, whatever happened
    return Answer(done.returncode, outcome["status"], str(outcome["error"]))


def ask_cli_call(world: World, given: dict[str, Any]) -> Answer:
    done = subprocess.run(
        [SLUICE, "call", given["use_case"], *given["pairs"], "--as", given["as"]],
        env=world.env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    answer = json.loads(done.stdout)
    return Answer(done.returncode, answer.get("kind", ""), str(answer.get("error")))


def ask_cli_admin(world: World, given: dict[str, Any]) -> Answer:
    done = subprocess.run(
        [SLUICE, *given["args"]], env=world.env, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    said = " ".join(done.stderr.split())  # the terminal wraps long lines
    return Answer(done.returncode, "usage" if done.returncode == 2 else "", said)


# The store, read directly.


def head(world: World) -> int:
    with Ledger(env=eventsourcing_env(world.url)) as ledger:
        return ledger.recorder.max_notification_id() or 0


def topics_after(world: World, position: int) -> list[str]:
    with Ledger(env=eventsourcing_env(world.url)) as ledger:
        return [n.topic for n in ledger.recorder.select_notifications(position + 1, 1000)]


def run_error(world: World, given: dict[str, Any], run_id: str) -> str:
    principal = given.get("as", "auditor")
    headers = {"Authorization": f"Bearer sk-demo-{principal}"}
    response = httpx.get(f"{world.base}/v1/programs/{run_id}", headers=headers, timeout=60)
    if response.status_code != 200:  # a direct call's run: an auditor reads it
        response = httpx.get(
            f"{world.base}/v1/runs/{run_id}", headers={"Authorization": "Bearer sk-demo-auditor"}
        )
    assert response.status_code == 200, response.text
    return str(response.json().get("error"))


# What stays allowed, and the bounds themselves.


def test_printable_text_of_every_script_is_kept_as_given(world: World) -> None:
    teller = {"Authorization": "Bearer sk-demo-teller"}
    alice = {"Authorization": "Bearer sk-demo-alice"}
    owner = "Zoë Ō'Brien-李"
    memo = "Café ☕ rent — 👨\u200d👩\u200d👧 ok"  # the joiner in a family emoji is printable
    with httpx.Client(base_url=world.base, timeout=60) as client:
        opened = client.post(
            "/v1/use-cases/open_account",
            json={"account": "uni", "owner": owner},
            headers=teller,
        )
        paid = client.post("/v1/use-cases/transfer", json=pay(memo), headers=alice)
        statement = client.get(
            "/v1/accounts/bob/statement", params={"consistent": "true"}, headers=teller
        )
        lines = client.post(
            "/v1/programs",
            json={
                "language": "python",
                "source": "x = 1\r\nif x:\n\tget_balance(account='alice')  # tab, CRLF\n",
                "request": "What is my balance?\nThanks.\t:)",
            },
            headers=alice,
        )
    assert opened.status_code == 200, opened.text
    assert opened.json()["result"]["owner"] == owner
    assert paid.status_code == 200, paid.text
    assert statement.json()["items"][0]["memo"] == memo
    assert lines.status_code == 201, lines.text


def test_the_caps_panel_counts_the_money_an_opening_brings(world: World) -> None:
    teller = {"Authorization": "Bearer sk-demo-teller"}
    source = 'open_account(account="panel", owner="Panel", initial_deposit=9999.99)'
    with httpx.Client(base_url=world.base, headers=teller, timeout=60) as client:
        proposal = client.post("/v1/programs", json={"language": "python", "source": source})
        assert proposal.status_code == 201, proposal.text
        client.post(f"/v1/programs/{proposal.json()['id']}/reject")
    assert proposal.json()["preview"]["caps"]["amount"] == {"used": "9999.99", "limit": "10000.00"}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def rich_sluice(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Sluice]:
    """The demo on each store, with a cap on money moved that lets the maximum through."""
    caps = replace(Caps(), max_amount_per_program=money.MAX_AMOUNT * 10)
    with empty_store(request.param, tmp_path) as url, Sluice(url, caps) as built:
        seed(built.gateway)
        yield built


def test_every_store_holds_the_maximum_balance_and_nothing_passes_it(
    rich_sluice: Sluice,
) -> None:
    teller = {"Authorization": "Bearer sk-demo-teller"}
    alice = {"Authorization": "Bearer sk-demo-alice"}
    bob = rich_sluice.ledger.load_keyed(Account, "bob")
    for _ in range(999):  # 999 of the largest deposits, written past the gateway
        bob.deposit(money.MAX_AMOUNT, "")
    rich_sluice.ledger.save(bob)
    maximum = f"{money.MAX_BALANCE:f}"
    with TestClient(create_app(rich_sluice), raise_server_exceptions=False) as client:
        last = client.post(
            "/v1/use-cases/deposit", json={"account": "bob", "amount": MAX}, headers=teller
        )
        position = rich_sluice.ledger.recorder.max_notification_id() or 0
        cent = client.post(
            "/v1/use-cases/deposit", json={"account": "bob", "amount": "0.01"}, headers=teller
        )
        paid = client.post("/v1/use-cases/transfer", json=pay("over"), headers=alice)
        program = client.post(
            "/v1/programs",
            json={"language": "python", "source": 'deposit(account="bob", amount=0.01)'},
            headers=teller,
        )
        read = client.get("/v1/accounts/bob", params={"consistent": "true"}, headers=teller)
        rows = client.get(
            "/v1/accounts/bob/statement", params={"consistent": "true"}, headers=teller
        )
    assert last.status_code == 200, last.text
    assert last.json()["result"]["balance"] == maximum
    over = f"bob would hold 1000000000000000.01, over the maximum balance of {maximum}"
    assert (cent.status_code, cent.json()["detail"]) == (422, f"deposit: {over}")
    assert paid.status_code == 422 and "over the maximum balance" in paid.json()["detail"]
    assert program.status_code == 422 and over in program.json()["detail"]
    written = rich_sluice.ledger.recorder.select_notifications(position + 1, 100)
    assert not [n for n in written if n.topic.startswith(ACCOUNT_TOPIC_PREFIXES)]
    assert read.json()["balance"] == maximum  # the read model's column holds it
    assert (rows.json()["items"][0]["amount"], rows.json()["items"][0]["balance"]) == (MAX, maximum)
    _, checks = rich_sluice.operations.verify(rich_sluice.read_models)
    assert all(check.ok for check in checks), [c.to_json() for c in checks if not c.ok]
