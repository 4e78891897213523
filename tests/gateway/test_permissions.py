"""P5: every role x every use case x owned / not-owned account, on three paths.

A direct call, a program naming the account as a literal (refused before it runs), and a
program computing the account at run time (refused at the call).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import pytest

from application import principals
from application.ledger import Ledger
from application.permissions import ROLES
from application.principals import PrincipalView
from application.store_config import eventsourcing_env
from gateway.core.catalog import Catalog
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from tests.conftest import Clock
from tests.gateway.conftest import accounts_state, make_gateway

ROLE_PRINCIPAL = {"customer": "alice", "teller": "teller", "auditor": "auditor", "admin": "admin"}
STAFF: set[str] = {"teller", "admin"}
EVERYONE: set[str] = set(ROLES)


def arguments(use_case: str, account: str) -> dict[str, Any]:
    """Arguments naming `account` where the use case takes an account it must own."""
    table: dict[str, dict[str, Any]] = {
        "open_account": {"account": "newcomer", "owner": "New"},
        "deposit": {"account": account, "amount": 1},
        "withdraw": {"account": account, "amount": 1},
        "transfer": {"payer": account, "payee": "carla", "amount": 1},
        "get_balance": {"account": account},
        "list_accounts": {},
        "statement": {"account": account},
        "close_account": {"account": account},
    }
    return table[use_case]


# use case -> (roles allowed, whether a customer must own the account argument)
EXPECTED: dict[str, tuple[set[str], bool]] = {
    "open_account": (STAFF, False),
    "deposit": (STAFF, False),
    "withdraw": (STAFF | {"customer"}, True),
    "transfer": (STAFF | {"customer"}, True),
    "get_balance": (EVERYONE, True),
    "list_accounts": (EVERYONE, False),
    "statement": (EVERYONE, True),
    "close_account": (STAFF | {"customer"}, True),
}

MATRIX = [
    (role, use_case, owned) for role in ROLES for use_case in EXPECTED for owned in (True, False)
]


def allowed(role: str, use_case: str, owned: bool) -> bool:
    roles, needs_ownership = EXPECTED[use_case]
    if role not in roles:
        return False
    return owned or not needs_ownership or role != "customer"


def literal_program(use_case: str, args: dict[str, Any]) -> str:
    written = ", ".join(f"{k}={v!r}" for k, v in args.items())
    return f"{use_case}({written})"


def computed_program(use_case: str, args: dict[str, Any]) -> str:
    # The account is assembled at run time, so only the call-time check can see it.
    lines = []
    written = []
    for k, v in args.items():
        if isinstance(v, str) and len(v) > 1:
            lines.append(f"{k}_value = {v[:1]!r} + {v[1:]!r}")
            written.append(f"{k}={k}_value")
        else:
            written.append(f"{k}={v!r}")
    return "\n".join([*lines, f"{use_case}({', '.join(written)})"])


@pytest.fixture
def funded(catalog: Catalog, sandbox: Sandbox, clock: Clock) -> Iterator[Gateway]:
    """The matrix runs once, on the in-memory store; bob gets 50.00 to move."""
    with Ledger(env=eventsourcing_env("memory://")) as ledger:
        gateway = make_gateway(ledger, catalog, sandbox, clock)
        seed(gateway)
        teller = principals.find(ledger, "teller")
        assert teller is not None
        gateway.call(teller, "deposit", {"account": "bob", "amount": 50})
        yield gateway


@pytest.mark.parametrize(("role", "use_case", "owned"), MATRIX)
def test_each_role_may_do_exactly_what_its_use_cases_allow(
    funded: Gateway, role: str, use_case: str, owned: bool
) -> None:
    principal = principals.find(funded.ledger, ROLE_PRINCIPAL[role])
    assert principal is not None
    args = arguments(use_case, "alice" if owned else "bob")
    expect_allowed = allowed(role, use_case, owned)

    for path in ("direct", "literal", "computed"):
        before = accounts_state(funded.ledger)
        try:
            if path == "direct":
                funded.call(principal, use_case, args)
            else:
                source = (literal_program if path == "literal" else computed_program)(
                    use_case, args
                )
                proposal = funded.propose(principal, "python", source)
                if proposal.status == "pending":
                    funded.reject(principal, proposal.id)
        except GatewayError as refusal:
            assert refusal.kind != "forbidden" or not expect_allowed, (path, str(refusal))
            if not expect_allowed:
                assert refusal.kind == "forbidden", (path, str(refusal))
                assert f"principal {principal.name}" in str(refusal)
                assert accounts_state(funded.ledger) == before
            continue
        assert expect_allowed, f"{path}: {role} {use_case} owned={owned} was not refused"
        if path == "direct":
            continue
        assert accounts_state(funded.ledger) == before  # a proposal writes nothing yet


def test_a_literal_account_not_owned_is_refused_before_the_program_runs(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    program = 'print("ran")\ntransfer(payer="bob", payee="alice", amount=5)'

    with pytest.raises(GatewayError) as refused:
        gateway.propose(who("alice"), "python", program)

    assert refused.value.kind == "forbidden"
    assert str(refused.value) == (
        "transfer: payer bob is not an account of principal alice (line 2, column 1)"
    )


def test_a_computed_account_not_owned_is_refused_at_the_call(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    before = accounts_state(gateway.ledger)
    program = (
        'for victim in ["al" + "ice", "b" + "ob"]:\n'
        '    transfer(payer=victim, payee="carla", amount=1)'
    )

    with pytest.raises(GatewayError) as refused:
        gateway.propose(who("alice"), "python", program)

    assert refused.value.kind == "forbidden"
    assert str(refused.value) == (
        "transfer: payer bob is not an account of principal alice (line 2, column 5)"
    )
    assert accounts_state(gateway.ledger) == before


def test_a_customer_may_pay_any_existing_account_but_not_a_missing_one(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    paid = gateway.call(who("alice"), "transfer", {"payer": "alice", "payee": "carla", "amount": 5})

    with pytest.raises(GatewayError) as refused:
        gateway.call(who("alice"), "transfer", {"payer": "alice", "payee": "dan", "amount": 5})

    assert paid.changed == 2
    assert (refused.value.kind, str(refused.value)) == ("refused", "transfer: no account dan")


def test_the_directory_and_sheets_show_only_what_the_principal_may_call(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    auditor = who("auditor")

    lines = [line for line in gateway.directory(auditor).splitlines() if line.startswith("- ")]

    assert [line.split()[1] for line in lines] == ["get_balance", "list_accounts", "statement"]
    with pytest.raises(GatewayError) as refused:
        gateway.sheets(auditor, ["transfer"])
    assert (refused.value.kind, str(refused.value)) == (
        "forbidden",
        "transfer is not allowed for principal auditor",
    )


def test_a_customer_lists_only_its_own_accounts(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    mine = gateway.call(who("bob"), "list_accounts", {}).result
    everyone = gateway.call(who("auditor"), "list_accounts", {}).result

    assert [a["account"] for a in mine] == ["bob"]
    assert [a["account"] for a in everyone] == ["alice", "bob", "carla"]
    assert Decimal(everyone[0]["balance"]) == Decimal("100.00")
