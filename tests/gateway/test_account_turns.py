"""A process's direct writes to one account take turns (application/turns.py): many
at once on a few accounts all commit, none is answered with a conflict, and a turn held too
long only sends the next write to the store."""

from __future__ import annotations

import threading
from collections.abc import Callable
from decimal import Decimal
from uuid import uuid4

import pytest

from application.principals import PrincipalView
from application.turns import TurnNotFreeError, Turns
from domain.account import Account, account_id
from gateway.core.facade import Gateway
from tests.gateway.conftest import accounts_state

THREADS = 8
EACH = 25


def test_writes_at_once_on_a_few_accounts_all_commit(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    teller = who("teller")
    for name in ("alice", "bob", "carla"):
        gateway.call(teller, "deposit", {"account": name, "amount": 1000})
    before = accounts_state(gateway.ledger)
    pairs = [("alice", "bob"), ("bob", "alice"), ("bob", "carla"), ("carla", "alice")]
    errors: list[Exception] = []

    def client(n: int) -> None:
        for i in range(EACH):
            payer, payee = pairs[(n + i) % len(pairs)]
            try:
                gateway.call(teller, "transfer", {"payer": payer, "payee": payee, "amount": 1})
            except Exception as error:  # a conflict (409) is what this test must not see
                errors.append(error)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    after = accounts_state(gateway.ledger)
    moved = {name: after[name][1] - before[name][1] for name in ("alice", "bob", "carla")}
    assert sum(moved.values()) == 2 * THREADS * EACH  # each transfer: one event on each side
    assert sum(after[n][0] for n in moved) == sum(before[n][0] for n in moved)
    for name in moved:  # every event of the account, in version order, replayed to its balance
        assert gateway.ledger.load_keyed(Account, name).balance == after[name][0]


def test_a_turn_held_too_long_sends_the_next_write_to_the_store(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    turns = gateway.ledger.turns
    turns.seconds = 0.05
    held = turns.take([account_id("alice")], wait=True)  # a write stuck with alice's turn
    try:
        outcome = gateway.call(
            who("alice"), "transfer", {"payer": "alice", "payee": "bob", "amount": 10}
        )
    finally:
        turns.give_back(held)

    assert outcome.status == "committed"
    assert Decimal(outcome.result["payer_balance"]) == Decimal("90.00")
    assert gateway.ledger.load_keyed(Account, "bob").balance == Decimal("10.00")


def test_turns_are_taken_in_id_order_or_not_at_all() -> None:
    turns = Turns(seconds=0.05)
    a, b, c = sorted([uuid4(), uuid4(), uuid4()])
    assert turns.take([c, a], wait=True) == [a, c]

    with pytest.raises(TurnNotFreeError):
        turns.take([b, c], wait=False)  # c is held: b is not kept either
    with pytest.raises(TurnNotFreeError):
        turns.take([c], wait=True)  # waits its bound, then gives up

    assert turns.take([b], wait=False) == [b]
    turns.give_back([a, c, b])
    assert turns.take([a, b, c], wait=False) == [a, b, c]
