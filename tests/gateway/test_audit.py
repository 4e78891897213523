"""P9: every committed event traces to its run: principal, program, hash, request, confirmer."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any
from uuid import UUID

from application.audit import provenance
from application.principals import PrincipalView
from domain.run import Run
from gateway.core.facade import Gateway

PROGRAM = 'transfer(payer="alice", payee="bob", amount=12, memo="lunch")\n'


def test_every_event_of_a_confirmed_program_traces_to_its_run(
    gateway: Gateway, who: Callable[[str], PrincipalView], clock: object
) -> None:
    alice = who("alice")
    proposal = gateway.proposals.propose(alice, "python", PROGRAM, request="pay bob for lunch")
    outcome = gateway.confirm(alice, proposal.id, proposal.preview_hash)

    for event in outcome.events:
        assert event.position is not None  # committed
        found = provenance(gateway.ledger, event.position)
        assert found is not None
        assert str(found.run_id) == proposal.id
        assert found.principal == "alice"
        assert found.source == PROGRAM
        assert found.source_sha256 == hashlib.sha256(PROGRAM.encode()).hexdigest()
        assert found.request == "pay bob for lunch"
        assert found.preview_hash == proposal.preview_hash
        assert found.confirmed_by == "alice"
        assert found.confirmed_at is not None


def test_direct_calls_and_the_demo_seed_are_traceable_too(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    outcome = gateway.call(who("teller"), "deposit", {"account": "carla", "amount": 3})
    [deposited] = outcome.events

    notes = gateway.ledger.recorder.select_notifications(1, 100)
    first_opened = next(n.id for n in notes if n.topic.endswith("Account.Opened"))

    assert deposited.position is not None  # committed
    direct = provenance(gateway.ledger, deposited.position)
    seeded = provenance(gateway.ledger, first_opened)

    assert direct is not None and direct.kind == "direct" and direct.principal == "teller"
    assert '"use_case": "deposit"' in direct.source
    assert seeded is not None and seeded.principal == "admin"


def test_every_account_event_in_the_log_has_a_run(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    for amount in (1, 2):
        proposal = gateway.propose(
            alice, "python", f'transfer(payer="alice", payee="carla", amount={amount})'
        )
        gateway.confirm(alice, proposal.id, proposal.preview_hash)

    notes = gateway.ledger.recorder.select_notifications(1, 10_000)
    account_events = [n for n in notes if n.topic.startswith("domain.account:")]

    assert account_events
    for note in account_events:
        assert provenance(gateway.ledger, note.id) is not None, note.topic


def test_refused_programs_are_recorded_as_failed_runs(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    try:
        gateway.propose(alice, "python", 'transfer(payer="bob", payee="alice", amount=99)')
    except Exception as refused:
        run_id = getattr(refused, "run_id", None)
    else:
        raise AssertionError("the program was not refused")

    run: Any = gateway.ledger.repository.get(UUID(run_id))

    assert isinstance(run, Run)
    assert (run.status, run.principal) == ("failed", "alice")
    assert (
        run.error == "transfer: payer bob is not an account of principal alice (line 1, column 1)"
    )
