"""P6: a program that exceeds a cap is aborted with an error naming the cap; nothing written."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from uuid import UUID

import pytest

from application import principals
from application.bank import BANK_USE_CASES
from application.ledger import Ledger
from application.principals import PrincipalView
from application.results import Proposal
from gateway.core.catalog import Catalog
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from gateway.settings import SettingsError, load_settings
from tests.conftest import TEST_CAPS, Clock
from tests.gateway.conftest import accounts_state, make_gateway

CAPPED = [
    (
        "total calls",
        'for i in range(51):\n    get_balance(account="alice")',
        "call limit: the program made more than 50 use-case calls (line 2, column 5)",
    ),
    (
        "calls per use case",
        'for i in range(11):\n    transfer(payer="alice", payee="bob", amount=1)',
        "cap max_calls_per_use_case: more than 10 transfer calls in one program (line 2, column 5)",
    ),
    (
        "amount moved",
        'deposit(account="bob", amount=6000)\ndeposit(account="carla", amount=5000)',
        "cap max_amount_per_program: moving 5000.00 more would bring the program to "
        "11000.00, over 10000.00 (line 2, column 1)",
    ),
    ("run time", "while True:\n    pass", "time limit: the program ran longer than 1 s"),
    (
        "memory",
        "blob = [0] * 10**9",
        "memory limit: the program needed more than 16 MiB (line 1, column 8)",
    ),
    (
        "program size",
        "x = 1\n" * 4000,
        "program size: 24000 bytes is over the limit of 20000",
    ),
]


@pytest.mark.parametrize(("program", "error"), [c[1:] for c in CAPPED], ids=[c[0] for c in CAPPED])
def test_a_program_over_a_cap_is_aborted_naming_the_cap(
    gateway: Gateway, who: Callable[[str], PrincipalView], program: str, error: str
) -> None:
    before = accounts_state(gateway.ledger)

    with pytest.raises(GatewayError) as refused:
        gateway.propose(who("admin"), "python", program)

    assert refused.value.kind == "cap-exceeded"
    assert str(refused.value) == error
    assert accounts_state(gateway.ledger) == before
    assert gateway.proposal(who("admin"), str(refused.value.run_id)).status == "failed"


def test_a_direct_call_obeys_the_amount_cap(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    with pytest.raises(GatewayError) as refused:
        gateway.call(who("teller"), "deposit", {"account": "bob", "amount": 10000.01})

    assert refused.value.kind == "cap-exceeded"
    assert str(refused.value).startswith("cap max_amount_per_program:")


def test_programs_per_minute_are_capped_per_principal(
    ledger: Ledger, catalog: Catalog, sandbox: Sandbox, clock: Clock
) -> None:
    gateway = make_gateway(
        ledger, catalog, sandbox, clock, replace(TEST_CAPS, programs_per_minute=2)
    )
    seed(gateway)
    alice, bob = principals.find(ledger, "alice"), principals.find(ledger, "bob")
    assert alice and bob
    program = 'get_balance(account="alice")'

    gateway.propose(alice, "python", program)
    gateway.propose(alice, "python", program)
    with pytest.raises(GatewayError) as refused:
        gateway.propose(alice, "python", program)

    assert refused.value.kind == "rate-limited"
    assert str(refused.value).startswith(
        "cap programs_per_minute: principal alice may propose 2 programs a minute"
    )
    assert 1 <= refused.value.extra["retry_after"] <= 60
    gateway.propose(bob, "python", 'get_balance(account="bob")')  # others are not held back


def test_a_fresh_preview_of_a_stale_proposal_counts_as_a_program_run(
    ledger: Ledger, catalog: Catalog, sandbox: Sandbox, clock: Clock
) -> None:
    # Each fresh preview is stored with the run (up to its bound), so confirming a stale
    # preview again and again must not store previews beyond the principal's program rate.
    gateway = make_gateway(
        ledger, catalog, sandbox, clock, replace(TEST_CAPS, programs_per_minute=2)
    )
    seed(gateway)
    alice, teller = principals.find(ledger, "alice"), principals.find(ledger, "teller")
    assert alice and teller
    proposal = gateway.propose(alice, "python", 'transfer(payer="alice", payee="bob", amount=1)')
    gateway.call(teller, "deposit", {"account": "alice", "amount": 1})
    with pytest.raises(GatewayError) as stale:
        gateway.confirm(alice, proposal.id, proposal.preview_hash)  # the second run
    fresh = stale.value.extra["proposal"]
    assert stale.value.kind == "conflict" and fresh["preview_hash"] != proposal.preview_hash
    gateway.call(teller, "deposit", {"account": "alice", "amount": 1})
    before = accounts_state(ledger)
    versions = len(list(ledger.events.get(proposal_id(proposal))))

    with pytest.raises(GatewayError) as refused:
        gateway.confirm(alice, fresh["id"], fresh["preview_hash"])  # a third run: over the cap

    assert refused.value.kind == "rate-limited"
    assert str(refused.value).startswith(
        "cap programs_per_minute: principal alice may run 2 programs a minute"
    )
    assert accounts_state(ledger) == before
    assert len(list(ledger.events.get(proposal_id(proposal)))) == versions  # nothing stored
    assert gateway.proposal(alice, fresh["id"]).preview_hash == fresh["preview_hash"]


def proposal_id(proposal: Proposal) -> UUID:
    return UUID(proposal.id)


def test_caps_are_configured_from_the_environment() -> None:
    caps = load_settings(
        {
            "SLUICE_CAP_MAX_CALLS": "20",
            "SLUICE_CAP_MAX_CALLS_PER_USE_CASE": "transfer=3,withdraw=2",
            "SLUICE_CAP_MAX_AMOUNT_PER_PROGRAM": "250.50",
            "SLUICE_CAP_PROGRAMS_PER_MINUTE": "5",
            "SLUICE_CAP_COMPLETE_READS_AT_ONCE": "false",
        }
    ).caps()

    assert caps.max_calls == 20
    assert caps.max_calls_per_use_case is not None
    assert dict(caps.max_calls_per_use_case) == {"transfer": 3, "withdraw": 2}
    assert str(caps.max_amount_per_program) == "250.50"
    assert caps.programs_per_minute == 5
    assert caps.complete_reads_at_once is False
    assert caps.program_limits().max_calls == 20


def test_without_the_environment_each_use_case_is_capped_by_its_own_max_calls() -> None:
    caps = load_settings({}).caps()

    assert {u.name: caps.calls_allowed(u) for u in BANK_USE_CASES} == {
        "open_account": 5,
        "deposit": 10,
        "withdraw": 10,
        "transfer": 10,
        "get_balance": None,
        "list_accounts": None,
        "statement": None,
        "close_account": 5,
    }


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SLUICE_CAP_MAX_CALLS", "many"),
        ("SLUICE_CAP_MAX_CALLS", "0"),
        ("SLUICE_CAP_MAX_CALLS_PER_USE_CASE", "transfer"),
        ("SLUICE_CAP_COMPLETE_READS_AT_ONCE", "perhaps"),
        ("SLUICE_CAP_MAX_AMOUNT_PER_PROGRAM", "NaN"),
        ("SLUICE_CAP_MAX_AMOUNT_PER_PROGRAM", "1e999999999"),
        ("SLUICE_CAP_MAX_AMOUNT_PER_PROGRAM", "0.001"),
        ("SLUICE_CAP_PROGRAMS_AT_ONCE", "0"),
        ("SLUICE_CAP_PROGRAMS_AT_ONCE", "one"),
        ("SLUICE_CAP_MCP_SESSIONS_PER_PRINCIPAL", "-1"),
    ],
)
def test_a_bad_cap_in_the_environment_is_refused_naming_it(variable: str, value: str) -> None:
    with pytest.raises(SettingsError) as refused:
        load_settings({variable: value})

    assert str(refused.value).startswith(f"{variable}={value!r}")


def test_a_cap_per_use_case_from_the_environment_replaces_the_use_cases_own(
    ledger: Ledger, catalog: Catalog, sandbox: Sandbox, clock: Clock
) -> None:
    caps = load_settings({"SLUICE_CAP_MAX_CALLS_PER_USE_CASE": "transfer=2"}).caps(
        use_cases=catalog.names
    )
    gateway = make_gateway(
        ledger,
        catalog,
        sandbox,
        clock,
        replace(TEST_CAPS, max_calls_per_use_case=caps.max_calls_per_use_case),
    )
    seed(gateway)
    admin = principals.find(ledger, "admin")
    assert admin
    before = accounts_state(ledger)

    with pytest.raises(GatewayError) as refused:
        gateway.propose(
            admin,
            "python",
            'for i in range(3):\n    transfer(payer="alice", payee="bob", amount=1)',
        )

    assert str(refused.value) == (
        "cap max_calls_per_use_case: more than 2 transfer calls in one program (line 2, column 5)"
    )
    assert accounts_state(ledger) == before


def test_a_cap_per_use_case_naming_no_use_case_is_refused_naming_it(catalog: Catalog) -> None:
    settings = load_settings({"SLUICE_CAP_MAX_CALLS_PER_USE_CASE": "transfer=3,transfers=2"})
    with pytest.raises(SettingsError) as refused:
        settings.caps(use_cases=catalog.names)

    assert str(refused.value) == (
        "SLUICE_CAP_MAX_CALLS_PER_USE_CASE='transfer=3,transfers=2': no use case transfers "
        "(the use cases: open_account, deposit, withdraw, transfer, get_balance, list_accounts, "
        "statement, close_account)"
    )
