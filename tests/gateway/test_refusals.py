"""A use case's refusal keeps its class to the edge, on every path that runs a use case.

`no account dan` is an AccountNotFoundError wherever it is raised: a direct call (run on a
unit of work, or answered from the read models), a program's call, a JSON plan's step, a
stale preview run again. The gateway keeps the error and names it (`refusal`) beside the
kind, which stays `refused` (422).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

import domain.conversation
import domain.run
import domain.shop.errors
from application.principals import PrincipalView
from domain.errors import AccountNotFoundError, DomainError, InsufficientFundsError
from gateway.core.errors import GatewayError, refusal_name
from gateway.core.facade import Gateway
from tests.gateway.conftest import accounts_state

PAY_DAN = """\
transfer(payer="alice", payee="bob", amount=1)
transfer(payer="alice", payee="dan", amount=1)
"""
PAY_DAN_PLAN = json.dumps(
    {
        "steps": [
            {"tool": "transfer", "args": {"payer": "alice", "payee": "bob", "amount": 1}},
            {"tool": "transfer", "args": {"payer": "alice", "payee": "dan", "amount": 1}},
        ]
    }
)


def test_a_direct_call_refused_by_the_domain_keeps_the_domain_error(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    before = accounts_state(gateway.ledger)

    with pytest.raises(GatewayError) as refused:
        gateway.call(who("alice"), "transfer", {"payer": "alice", "payee": "dan", "amount": 5})

    assert (refused.value.kind, str(refused.value)) == ("refused", "transfer: no account dan")
    assert isinstance(refused.value.refusal, AccountNotFoundError)
    assert refused.value.to_json()["refusal"] == "account-not-found"
    assert accounts_state(gateway.ledger) == before


@pytest.mark.parametrize(
    ("language", "source", "place"),
    [("python", PAY_DAN, "(line 2, column 1)"), ("plan", PAY_DAN_PLAN, "(step 2)")],
)
def test_a_program_or_plan_step_refused_by_the_domain_keeps_the_domain_error(
    gateway: Gateway,
    who: Callable[[str], PrincipalView],
    language: str,
    source: str,
    place: str,
) -> None:
    before = accounts_state(gateway.ledger)

    with pytest.raises(GatewayError) as refused:
        gateway.propose(who("alice"), language, source)

    assert (refused.value.kind, str(refused.value)) == (
        "refused",
        f"transfer: no account dan {place}",
    )
    assert isinstance(refused.value.refusal, AccountNotFoundError)
    assert refused.value.to_json()["refusal"] == "account-not-found"
    assert accounts_state(gateway.ledger) == before


def test_a_stale_preview_that_now_fails_names_the_refusal_beside_the_conflict(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    teller = who("teller")
    first = gateway.propose(teller, "python", 'withdraw(account="alice", amount=60)')
    second = gateway.propose(teller, "python", 'withdraw(account="alice", amount=60)')
    gateway.confirm(teller, first.id, first.preview_hash)

    with pytest.raises(GatewayError) as refused:
        gateway.confirm(teller, second.id, second.preview_hash)

    assert refused.value.kind == "conflict"
    assert "alice has only 40.00" in str(refused.value)
    assert isinstance(refused.value.refusal, InsufficientFundsError)
    assert refused.value.to_json()["refusal"] == "insufficient-funds"


def test_a_refusal_that_is_not_the_domains_names_no_refusal(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    with pytest.raises(GatewayError) as refused:
        gateway.propose(who("alice"), "python", 'transfer(payer="alice", payee="bob", amount=0)')

    assert refused.value.kind == "refused"
    assert refused.value.refusal is None
    assert "refusal" not in refused.value.to_json()


def _domain_errors(base: type[DomainError]) -> list[type[DomainError]]:
    found = []
    for sub in base.__subclasses__():
        found += [sub, *_domain_errors(sub)]
    return found


def test_every_domain_refusal_has_a_stable_name() -> None:
    # Imported for their refusals: the domain's other modules that define one, and the
    # shop's (imported here, the set does not hang on whether a shop test ran first).
    assert domain.run and domain.conversation and domain.shop.errors

    # The shipped domains' refusals: a test's own domain (its module under tests/) is not one.
    shipped = [cls for cls in _domain_errors(DomainError) if cls.__module__.startswith("domain.")]
    names = {cls.__name__: refusal_name(cls) for cls in shipped}

    assert names == {
        "AccountNotFoundError": "account-not-found",
        "AccountExistsError": "account-exists",
        "AccountClosedError": "account-closed",
        "InsufficientFundsError": "insufficient-funds",
        "RefundLimitError": "refund-limit",
        "AccountNotEmptyError": "account-not-empty",
        "BalanceLimitError": "balance-limit",
        "InvalidAmountError": "invalid-amount",
        "SameAccountError": "same-account",
        "ProposalEndedError": "proposal-ended",
        "TurnNotAnswerableError": "turn-not-answerable",
        "ProductNotFoundError": "product-not-found",
        "ProductExistsError": "product-exists",
        "OutOfStockError": "out-of-stock",
        "InvalidQuantityError": "invalid-quantity",
        "InvalidPriceError": "invalid-price",
        "OrderNotFoundError": "order-not-found",
        "OrderExistsError": "order-exists",
        "OrderStatusError": "order-status",
        "PaymentMismatchError": "payment-mismatch",
        "CatalogueNotFoundError": "catalogue-not-found",
        "CatalogueExistsError": "catalogue-exists",
    }
