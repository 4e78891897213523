"""P7 and P8: a corpus of hostile programs and plans. Each is refused with one clear line,
nothing is appended to any account, and the gateway keeps serving."""
# ruff: noqa: E501 (the table keeps one hostile case per line)

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from application.principals import PrincipalView
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from tests.gateway.conftest import accounts_state

PAY = 'transfer(payer="alice", payee="carla", amount=1)'

# (name, principal, language, source, kind, a fragment of the error)
HOSTILE = [
    # Escapes through attributes and dunders.
    ("class escape", "alice", "python", "().__class__.__bases__[0].__subclasses__()", "invalid-program", "attribute __subclasses__"),
    ("function globals", "alice", "python", "get_balance.__globals__", "invalid-program", "attribute __globals__"),
    ("aliased function code", "alice", "python", "f = len\nf.__code__", "invalid-program", "attribute __code__"),
    ("getattr dunder", "alice", "python", 'getattr(transfer, "__globals__")', "invalid-program", "getattr is not allowed"),
    ("string class", "alice", "python", '"".__class__.__mro__', "invalid-program", "attribute __mro__"),
    ("f-string dunder", "alice", "python", 'x = 1\nf"{x.__class__}"', "invalid-program", "attribute __class__"),
    ("builtins", "alice", "python", "__builtins__", "invalid-program", "__builtins__ is not allowed"),
    ("type()", "alice", "python", "type(1)", "invalid-program", "type is not allowed"),
    ("globals()", "alice", "python", "globals()", "invalid-program", "globals is not allowed"),
    ("vars()", "alice", "python", "vars()", "invalid-program", "vars is not allowed"),
    ("private attribute", "alice", "python", "x = []\nx._secret", "invalid-program", "attribute _secret"),
    ("dunder inside a format string", "alice", "python", '"{0.__class__.__bases__}".format(len)', "invalid-program", "has no attribute '__class__'"),
    ("use case as a value", "alice", "python", '"{0.__globals__}".format(transfer)', "invalid-program", "transfer is a use case: it can only be called, as in transfer(...)"),
    ("use case under another name", "alice", "python", 'pay = transfer\npay(payer="bob", payee="alice", amount=1)', "invalid-program", "transfer is a use case: it can only be called"),
    # Imports, files, code from text.
    ("import os", "alice", "python", "import os\nos.system('id')", "invalid-program", "import is not allowed"),
    ("from import", "alice", "python", "from subprocess import run", "invalid-program", "import is not allowed"),
    ("dunder import", "alice", "python", "__import__('os')", "invalid-program", "__import__ is not allowed"),
    ("open", "alice", "python", "open('/etc/passwd').read()", "invalid-program", "open is not allowed"),
    ("eval", "alice", "python", "eval('1 + 1')", "invalid-program", "eval is not allowed"),
    ("exec", "alice", "python", "exec('x = 1')", "invalid-program", "exec is not allowed"),
    ("compile", "alice", "python", "compile('1', 'f', 'eval')", "invalid-program", "compile is not allowed"),
    ("input", "alice", "python", "input()", "invalid-program", "input is not allowed"),
    # Bombs.
    ("recursion", "alice", "python", "def f(n):\n    return f(n + 1)\nf(0)", "cap-exceeded", "recursion limit"),
    ("list bomb", "alice", "python", "x = [0] * 10**9", "cap-exceeded", "memory limit"),
    ("string bomb", "alice", "python", "x = 'x' * 10**10", "cap-exceeded", "memory limit"),
    ("growing loop", "alice", "python", "x = [1]\nwhile True:\n    x = x + x", "cap-exceeded", "limit"),
    ("infinite loop", "alice", "python", "while True:\n    pass", "cap-exceeded", "time limit"),
    ("printing flood", "alice", "python", "while True:\n    print('spam' * 1000)", "cap-exceeded", "output limit"),
    ("huge result", "alice", "python", "'x' * 10**6", "cap-exceeded", "result limit"),
    # Names outside the catalog, and its functions misused.
    ("unknown use case", "alice", "python", "delete_all_accounts()", "invalid-program", "unknown function or name delete_all_accounts"),
    ("redefine a use case", "alice", "python", "def get_balance(account):\n    return 0", "invalid-program", "get_balance is a use case"),
    ("reassign a use case", "alice", "python", "transfer = print", "invalid-program", "transfer is a use case and cannot be reassigned"),
    ("unpacked arguments", "alice", "python", 'args = {"payer": "bob"}\ntransfer(**args)', "invalid-program", "not unpacked"),
    # Escalation.
    ("pay from another", "alice", "python", 'transfer(payer="bob", payee="alice", amount=1)', "forbidden", "payer bob is not an account of principal alice"),
    ("computed payer", "alice", "python", 'p = "".join(["b", "o", "b"])\ntransfer(payer=p, payee="alice", amount=1)', "forbidden", "payer bob is not an account of principal alice"),
    ("payer from data", "alice", "python", 'p = list_accounts()[0]["account"]\nfor a in ["alice", "bob"]:\n    withdraw(account=a, amount=1)', "forbidden", "account bob is not an account of principal alice"),
    ("customer deposits", "alice", "python", 'deposit(account="alice", amount=1000)', "forbidden", "deposit is not allowed for principal alice"),
    ("customer opens", "alice", "python", 'open_account(account="mine", owner="Alice", initial_deposit=1000)', "forbidden", "open_account is not allowed for principal alice"),
    ("auditor writes", "auditor", "python", PAY, "forbidden", "transfer is not allowed for principal auditor"),
    ("read another", "bob", "python", 'get_balance(account="alice")', "forbidden", "account alice is not an account of principal bob"),
    ("close another", "bob", "python", 'close_account(account="carla")', "forbidden", "account carla is not an account of principal bob"),
    # Cap evasion.
    ("transfer loop", "alice", "python", "for i in range(100):\n    " + PAY, "cap-exceeded", "more than 10 transfer calls"),
    ("while counter", "alice", "python", "i = 0\nwhile i < 100:\n    " + PAY + "\n    i += 1", "cap-exceeded", "more than 10 transfer calls"),
    ("nested loops", "teller", "python", 'for i in range(10):\n    for j in range(10):\n        get_balance(account="bob")', "cap-exceeded", "more than 50 use-case calls"),
    ("recursive calls", "teller", "python", 'def again(n):\n    deposit(account="bob", amount=1)\n    again(n + 1)\nagain(0)', "cap-exceeded", "more than 10 deposit calls"),
    ("split amounts", "teller", "python", 'for i in range(3):\n    deposit(account="bob", amount=4000)', "cap-exceeded", "cap max_amount_per_program"),
    # Hostile plans.
    ("plan: later reference", "alice", "plan", json.dumps({"steps": [{"tool": "get_balance", "args": {"account": {"$ref": "x"}}}, {"tool": "get_balance", "args": {"account": "alice"}, "result": "x"}]}), "invalid-program", "names no earlier step's result"),
    ("plan: unknown tool", "alice", "plan", json.dumps({"steps": [{"tool": "drop_table", "args": {}}]}), "invalid-program", "'drop_table' is not one of"),
    ("plan: payee from data", "alice", "plan", json.dumps({"steps": [{"tool": "list_accounts", "args": {}, "result": "a"}, {"tool": "transfer", "args": {"payer": "alice", "payee": {"$ref": "a"}, "amount": 1}}]}), "invalid-program", "transfer: payee may not be taken from text"),
    ("plan: deep nesting", "alice", "plan", "[" * 10_000 + "]" * 10_000, "invalid-program", "nested deeper than"),
    ("plan: oversized", "alice", "plan", json.dumps({"steps": [{"tool": "get_balance", "args": {"account": "alice"}}] * 1000}), "cap-exceeded", "plan size"),
    ("plan: too many steps", "alice", "plan", json.dumps({"steps": [{"tool": "get_balance", "args": {"account": "alice"}}] * 51}), "invalid-program", "51 items, where at most 50 are allowed"),
    ("plan: not JSON", "alice", "plan", "steps: [transfer]", "invalid-program", "invalid JSON"),
    ("plan: not an object", "alice", "plan", "[1, 2]", "invalid-program", "must be a JSON object"),
    ("plan: code in a reference", "alice", "plan", json.dumps({"steps": [{"tool": "get_balance", "args": {"account": "alice"}, "result": "b"}, {"tool": "statement", "args": {"account": {"$ref": "b.__class__"}}}]}), "invalid-program", "does not match"),
    ("plan: escalation", "alice", "plan", json.dumps({"steps": [{"tool": "transfer", "args": {"payer": "bob", "payee": "alice", "amount": 1}}]}), "forbidden", "payer bob is not an account of principal alice"),
    ("plan: extra argument", "alice", "plan", json.dumps({"steps": [{"tool": "transfer", "args": {"payer": "alice", "payee": "bob", "amount": 1, "fee": 0}}]}), "invalid-program", "'fee' was unexpected"),
    ("plan: wrong type", "alice", "plan", json.dumps({"steps": [{"tool": "transfer", "args": {"payer": "alice", "payee": "bob", "amount": "all"}}]}), "invalid-program", "is not of type 'number'"),
]  # fmt: skip


def test_the_corpus_is_large_enough() -> None:
    assert len(HOSTILE) >= 40
    assert len({name for name, *_ in HOSTILE}) == len(HOSTILE)


@pytest.mark.parametrize(
    ("principal", "language", "source", "kind", "fragment"),
    [case[1:] for case in HOSTILE],
    ids=[case[0] for case in HOSTILE],
)
def test_a_hostile_program_is_refused_and_nothing_is_appended(
    gateway: Gateway,
    who: Callable[[str], PrincipalView],
    principal: str,
    language: str,
    source: str,
    kind: str,
    fragment: str,
) -> None:
    before = accounts_state(gateway.ledger)

    with pytest.raises(GatewayError) as refused:
        gateway.propose(who(principal), language, source)

    message = str(refused.value)
    assert (refused.value.kind, fragment in message) == (kind, True), message
    assert "\n" not in message
    assert accounts_state(gateway.ledger) == before
    # The gateway keeps serving.
    proposal = gateway.propose(who("alice"), "python", PAY)
    assert proposal.status == "pending"
