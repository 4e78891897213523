"""Every read model answers what its use case's `perform` answers from the event store.

A direct read (the HTTP read routes, MCP, `sluice call`) of get_balance, statement or
list_accounts is answered from the projections; a program's read runs the use case's
`perform` on the accounts' events. Hypothesis writes histories of bank operations,
refused ones included, and after each one the two answers must be the same, refusals and
all, for every account it named, on each store.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st
from pydantic_core import to_jsonable_python

from application.bank.queries import GetBalance, ListAccounts, Statement
from application.bank.read_routes import ACCOUNTS, STATEMENT
from application.principals import PrincipalView
from application.unit_of_work import UnitOfWork
from application.use_case import UseCase
from domain.errors import DomainError
from gateway.bootstrap import Sluice
from gateway.core.errors import GatewayError
from gateway.core.program.sandbox import Sandbox
from gateway.core.read_side import ReadSide
from gateway.demo import seed
from tests.conftest import STORES, TEST_CAPS
from tests.postgres import support
from tests.stores import empty_store

# The accounts of one history, named apart by a prefix of its own (`h7x` + letter); `z` is
# never opened. `-` and `_` sort before and after the digits and letters.
LETTERS = ("a", "b-c", "b_c")
OWNERS = ("Ann", "Ben")
Answer = tuple[str, Any]  # ("answered", the result as JSON values) or ("refused", why)
History = list[tuple[str, dict[str, str]]]

letters = st.sampled_from(LETTERS)
# Most amounts fit in most first deposits, so that movements happen as well as refusals.
amounts = st.integers(1, 1500).map(lambda cents: str(Decimal(cents).scaleb(-2)))
first_deposits = st.sampled_from(["50.00", "30.00", "12.34", "0.01", "0"])
memos = st.sampled_from(["", "rent", "café ☕"])


def _call(name: str, **arguments: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.tuples(st.just(name), st.fixed_dictionaries(arguments))


def _transfer(pair: list[str], amount: str, memo: str) -> dict[str, str]:
    return {"payer": pair[0], "payee": pair[1], "amount": amount, "memo": memo}


def _history(opened: list[tuple[str, str | None, str]], then: History) -> History:
    first = [
        ("open_account", {"account": letter, "owner": owner, "initial_deposit": deposit})
        for letter, deposit, owner in opened
        if deposit is not None
    ]
    return first + then


transfers = st.tuples(
    st.just("transfer"), st.builds(_transfer, st.permutations(LETTERS), amounts, memos)
)
operations = st.one_of(
    _call(
        "open_account",
        account=letters,
        owner=st.sampled_from(OWNERS),
        initial_deposit=first_deposits,
    ),
    _call("deposit", account=letters, amount=amounts, memo=memos),
    _call("withdraw", account=letters, amount=amounts, memo=memos),
    # Twice as likely as the others: a transfer moves two accounts in one commit.
    transfers,
    transfers,
    # Withdraw what is left, then close: the way an account gets closed at all.
    _call("empty_and_close", account=letters),
)
# A history opens its accounts in some order, or leaves one unopened (None), then acts.
opened_with = st.sampled_from(["50.00", "30.00", "12.34", "0", None])
openings = st.permutations(LETTERS).flatmap(
    lambda order: st.tuples(
        *[st.tuples(st.just(letter), opened_with, st.sampled_from(OWNERS)) for letter in order]
    )
)
histories = st.builds(_history, openings, st.lists(operations, min_size=1, max_size=10))


@pytest.fixture(params=STORES)
def demo(request: pytest.FixtureRequest, tmp_path: Path, sandbox: Sandbox) -> Iterator[Sluice]:
    """The demo alone on an empty store; the histories share it, each on accounts of its own."""
    with (
        empty_store(request.param, tmp_path) as url,
        Sluice(url, TEST_CAPS, sandbox=sandbox) as built,
    ):
        seed(built.gateway)
        yield built


def test_every_read_model_answers_what_perform_answers(demo: Sluice) -> None:
    both = BothSides(demo)
    numbers = itertools.count(1)

    @settings(max_examples=40, deadline=None)
    @given(history=histories)
    def check(history: History) -> None:
        prefix = f"h{next(numbers)}x"
        note(f"history {prefix}: {history}")
        for name, arguments in history:
            both.apply(name, _named(prefix, arguments))
        accounts = [prefix + letter for letter in (*LETTERS, "z")]
        # Only this history's accounts: what it shows depends on nothing before it.
        mine = partial(_only, prefix)

        for account in accounts:
            asked = {"account": account}
            assert both.direct("get_balance", asked) == both.performed(GetBalance, asked), account
            for limit in (2, 100):
                direct = both.read("statement", both.statement, account, limit)
                performed = both.performed(Statement, asked | {"limit": limit})
                assert direct == performed, (account, limit)
        assert mine(both.read("list_accounts", both.accounts)) == mine(
            both.performed(ListAccounts, {})
        )
        for owner in OWNERS:
            asked = {"owner": owner}
            assert mine(both.direct("list_accounts", asked)) == mine(
                both.performed(ListAccounts, asked)
            ), owner
        customer = PrincipalView("reader", "customer", frozenset(accounts[::2]))
        assert both.read("list_accounts", both.accounts, principal=customer) == (
            both.performed(ListAccounts, {}, visible=customer.owns)
        )

    check()
    # And the whole store, every history's accounts and the demo's, in one listing.
    assert both.read("list_accounts", both.accounts) == both.performed(ListAccounts, {})


@pytest.mark.postgres
def test_accounts_are_listed_alike_whatever_the_databases_collation(sandbox: Sandbox) -> None:
    # en-US puts `_` before `-` and both before digits; code points put `-` first and `_`
    # after the digits. The read models must not take the order of the database's locale.
    names = ["hb_c", "hb-c", "hb1", "hbc", "ha"]
    with (
        support.database_sorting_as("en-US") as url,
        Sluice(url, TEST_CAPS, sandbox=sandbox) as demo,
    ):
        seed(demo.gateway)
        both = BothSides(demo)
        for name in names:
            both.apply("open_account", {"account": name, "owner": "Ann", "initial_deposit": "0"})

        read = both.read("list_accounts", both.accounts)

        assert read == both.performed(ListAccounts, {})
        assert [row["account"] for row in read[1]] == sorted([*names, "alice", "bob", "carla"])


class BothSides:
    """The two ways to answer a read: from the read models, and by the use case itself."""

    def __init__(self, sluice: Sluice) -> None:
        self.sluice = sluice
        self.gateway = sluice.gateway
        self.read_side = ReadSide(sluice.gateway)
        self.teller = self.gateway.authenticate("sk-demo-teller")
        self.auditor = self.gateway.authenticate("sk-demo-auditor")

    def accounts(self, principal: PrincipalView, *, consistent: bool) -> list[Any]:
        """GET /v1/accounts, whole."""
        return self.read_side.listed(ACCOUNTS, principal, consistent=consistent)

    def statement(
        self, principal: PrincipalView, account: str, limit: int, *, consistent: bool
    ) -> list[Any]:
        """GET /v1/accounts/{account}/statement, its first page."""
        page = self.read_side.history_page(
            STATEMENT, principal, account, limit=limit, consistent=consistent
        )
        return page.items

    def apply(self, name: str, arguments: dict[str, str]) -> None:
        """One operation as a teller's direct call; a refusal is part of the history too."""
        try:
            if name == "empty_and_close":
                balance = self.performed(GetBalance, arguments)
                if balance[0] == "answered" and Decimal(balance[1]) > 0:
                    withdrawn = arguments | {"amount": balance[1]}
                    self.gateway.call(self.teller, "withdraw", withdrawn)
                name = "close_account"
            self.gateway.call(self.teller, name, arguments)
        except GatewayError as refused:
            assert refused.kind == "refused", refused

    def direct(self, name: str, arguments: dict[str, Any]) -> Answer:
        """A direct call (MCP, `sluice call`, POST /v1/use-cases/NAME) of a read use case."""
        return self.read(
            name,
            lambda principal, **kw: self.gateway.call(principal, name, arguments, **kw).result,
        )

    def read(
        self,
        name: str,
        ask: Callable[..., Any],
        *arguments: Any,
        principal: PrincipalView | None = None,
    ) -> Answer:
        """What the read side answers, caught up with the log first (`consistent`), as JSON."""
        try:
            answer = ask(principal or self.auditor, *arguments, consistent=True)
            return "answered", to_jsonable_python(answer)
        except GatewayError as refused:
            return "refused", str(refused).removeprefix(f"{name}: ")

    def performed(
        self,
        use_case: type[UseCase[Any]],
        arguments: dict[str, Any],
        *,
        visible: frozenset[str] | None = None,
    ) -> Answer:
        """What the use case itself answers, from the events in the store."""
        query = use_case.model_validate(arguments)
        try:
            value = query.perform(UnitOfWork(self.sluice.ledger, visible=visible))
        except DomainError as refusal:
            return "refused", str(refusal)
        return "answered", use_case.result_adapter().dump_python(value, mode="json")


def _named(prefix: str, arguments: dict[str, str]) -> dict[str, str]:
    """The history's own accounts: `a` becomes `h7xa`."""
    return {
        key: prefix + value if key in ("account", "payer", "payee") else value
        for key, value in arguments.items()
    }


def _only(prefix: str, answer: Answer) -> Answer:
    kind, rows = answer
    if kind != "answered":
        return answer
    return kind, [row for row in rows if row["account"].startswith(prefix)]
