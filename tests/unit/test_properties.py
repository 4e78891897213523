"""Properties over random histories (hypothesis): the books balance whatever happens."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from application.bank.movements import Deposit, Transfer, Withdraw
from application.bank.statement import entries
from application.ledger import Ledger
from application.use_case import UseCase
from domain.account import Account
from domain.money import ZERO
from tests.direct import call_now, seed_demo

NAMES = ["alice", "bob", "carla"]
AMOUNTS = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("80"), places=2)
OPERATIONS = st.lists(
    st.one_of(
        st.builds(Deposit, account=st.sampled_from(NAMES), amount=AMOUNTS),
        st.builds(Withdraw, account=st.sampled_from(NAMES), amount=AMOUNTS),
        st.builds(
            Transfer, payer=st.sampled_from(NAMES), payee=st.sampled_from(NAMES), amount=AMOUNTS
        ),
    ),
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(operations=OPERATIONS)
def test_any_history_keeps_money_conserved_and_no_balance_below_zero(
    operations: list[UseCase[object]],
) -> None:
    ledger = Ledger(env={"PERSISTENCE_MODULE": "infrastructure.popo"})
    seed_demo(ledger)
    deposited = withdrawn = ZERO
    for operation in operations:
        if call_now(ledger, operation).ok:
            if isinstance(operation, Deposit):
                deposited += operation.amount
            elif isinstance(operation, Withdraw):
                withdrawn += operation.amount

    balances = {name: ledger.load_keyed(Account, name).balance for name in NAMES}
    assert sum(balances.values()) == Decimal("100.00") + deposited - withdrawn
    assert min(balances.values()) >= 0
    for name in NAMES:
        statement = entries(name, ledger.events_of(Account.id_for(name)))
        # Each statement line's running balance is the previous one plus its amount,
        # never negative, ending at the account's balance.
        running = ZERO
        for entry in statement:
            running += entry.amount
            assert entry.balance == running >= 0
        assert running == balances[name]
