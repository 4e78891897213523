"""P6: a principal runs at most `programs_at_once` programs at once (issue 14), so one principal
cannot hold every sandbox worker. One more is refused at once (rate-limited, with a retry),
counting nothing and writing nothing; a confirmation runs nothing unless its preview is
stale, and then it waits for the principal's program to end as long as for a worker."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import pytest

from application import principals
from application.ledger import Ledger
from application.principals import PrincipalView
from gateway.core.catalog import Catalog
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.policy.caps import Caps
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from gateway.settings import load_settings
from tests.conftest import TEST_CAPS, TEST_LIMITS, Clock
from tests.gateway.conftest import accounts_state, make_gateway

RUNAWAY = "while True:\n    pass\n"
PAY_BOB = 'transfer(payer="alice", payee="bob", amount=1)'


@contextmanager
def running(gateway: Gateway, principal: PrincipalView) -> Iterator[list[GatewayError]]:
    """The principal's runaway program, proposed in another thread and running meanwhile;
    what it raised (its time cap) once the block ends."""
    raised: list[GatewayError] = []

    def run() -> None:
        try:
            gateway.propose(principal, "python", RUNAWAY)
        except GatewayError as error:
            raised.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    try:
        while gateway.at_once.running(principal.name) == 0:
            assert thread.is_alive(), raised
            time.sleep(0.005)
        yield raised
    finally:
        thread.join(timeout=60)


def gateway_with(
    ledger: Ledger, catalog: Catalog, sandbox: Sandbox, clock: Clock, caps: Caps = TEST_CAPS
) -> tuple[Gateway, PrincipalView, PrincipalView, PrincipalView]:
    gateway = make_gateway(ledger, catalog, sandbox, clock, caps)
    seed(gateway)
    found = [principals.find(ledger, name) for name in ("alice", "bob", "teller")]
    alice, bob, teller = found
    assert alice and bob and teller
    return gateway, alice, bob, teller


def test_one_more_program_is_refused_at_once_counting_and_writing_nothing(
    ledger: Ledger, catalog: Catalog, sandbox: Sandbox, clock: Clock
) -> None:
    caps = replace(TEST_CAPS, programs_per_minute=2)
    gateway, alice, bob, _ = gateway_with(ledger, catalog, sandbox, clock, caps)
    assert gateway.caps.programs_at_once == 1  # the default
    head = ledger.recorder.max_notification_id()

    with running(gateway, alice) as runaway, pytest.raises(GatewayError) as refused:
        gateway.propose(alice, "python", PAY_BOB)

    assert refused.value.kind == "rate-limited"
    assert str(refused.value) == (
        "cap programs_at_once: principal alice may run 1 program at once and 1 is running; "
        "nothing was written; retry in 1 s"
    )
    assert refused.value.extra["retry_after"] == 1  # the time cap, 1 s in these tests
    assert refused.value.run_id is None
    (timed_out,) = runaway
    assert str(timed_out) == "time limit: the program ran longer than 1 s"
    # Only the runaway's run is written; the refusal was not counted in programs_per_minute:
    # two more programs are still alice's this minute.
    assert written_since(ledger, head) == {timed_out.run_id}
    assert gateway.propose(alice, "python", PAY_BOB).status == "pending"
    gateway.propose(bob, "python", 'get_balance(account="bob")')


def test_other_principals_run_while_one_is_at_its_limit(
    ledger: Ledger, catalog: Catalog, sandbox: Sandbox, clock: Clock
) -> None:
    gateway, alice, bob, _ = gateway_with(ledger, catalog, sandbox, clock)

    with running(gateway, alice):
        read = gateway.propose(bob, "python", 'get_balance(account="bob")')

    assert read.outcome.status == "committed"
    assert read.outcome.result == "0.00"


def test_a_confirmation_that_runs_nothing_is_not_held_back(
    ledger: Ledger, catalog: Catalog, sandbox: Sandbox, clock: Clock
) -> None:
    gateway, alice, _, _ = gateway_with(ledger, catalog, sandbox, clock)
    proposal = gateway.propose(alice, "python", PAY_BOB)

    # Her agent's program runs; she confirms the preview she read: it commits.
    with running(gateway, alice):
        outcome = gateway.confirm(alice, proposal.id, proposal.preview_hash)

    assert outcome.status == "committed"


def test_a_stale_confirmation_waits_for_the_principals_program_then_previews_afresh(
    ledger: Ledger, catalog: Catalog, sandbox: Sandbox, clock: Clock
) -> None:
    gateway, alice, _, teller = gateway_with(ledger, catalog, sandbox, clock)
    proposal = gateway.propose(alice, "python", PAY_BOB)
    gateway.call(teller, "deposit", {"account": "alice", "amount": 5})  # the preview is stale

    # Her runaway ends on its 1 s time cap, well within the 5 s a program waits for a worker.
    with running(gateway, alice), pytest.raises(GatewayError) as stale:
        gateway.confirm(alice, proposal.id, proposal.preview_hash)

    assert stale.value.kind == "conflict"  # as any stale confirmation: a fresh preview
    fresh = stale.value.extra["proposal"]
    assert fresh["preview_hash"] != proposal.preview_hash
    assert gateway.confirm(alice, fresh["id"], fresh["preview_hash"]).status == "committed"


def test_a_stale_confirmation_whose_principal_stays_busy_is_refused_and_stays_pending(
    ledger: Ledger, catalog: Catalog, clock: Clock
) -> None:
    # The runaway runs 3 s; a program waits at most 0.5 s for a worker, and so for a slot.
    sandbox = Sandbox(replace(TEST_LIMITS, wall_seconds=3), workers=2, wait_seconds=0.5)
    try:
        caps = replace(TEST_CAPS, max_run_seconds=3)
        gateway, alice, _, teller = gateway_with(ledger, catalog, sandbox, clock, caps)
        proposal = gateway.propose(alice, "python", PAY_BOB)
        gateway.call(teller, "deposit", {"account": "alice", "amount": 5})
        before = accounts_state(ledger)
        head = ledger.recorder.max_notification_id()

        with running(gateway, alice) as runaway, pytest.raises(GatewayError) as refused:
            gateway.confirm(alice, proposal.id, proposal.preview_hash)

        assert refused.value.kind == "rate-limited"
        assert str(refused.value) == (
            "cap programs_at_once: principal alice may run 1 program at once and 1 is still "
            "running after 0.5 s (a fresh preview of a stale proposal is one); nothing was "
            "written; retry in 3 s"
        )
        assert refused.value.extra["retry_after"] == 3
        assert accounts_state(ledger) == before
        (timed_out,) = runaway
        assert written_since(ledger, head) == {timed_out.run_id}  # the runaway's run alone
        shown = gateway.proposal(alice, proposal.id)
        assert shown.status == "pending"
        assert shown.preview_hash == proposal.preview_hash
    finally:
        sandbox.close()


def written_since(ledger: Ledger, head: int | None) -> set[str]:
    """The aggregates (here: runs) with events stored after position `head`."""
    stored = ledger.recorder.select_notifications((head or 0) + 1, 10_000)
    return {str(n.originator_id) for n in stored}


def test_the_limit_is_configured_from_the_environment() -> None:
    assert Caps().programs_at_once == 1
    assert load_settings({"SLUICE_CAP_PROGRAMS_AT_ONCE": "3"}).caps().programs_at_once == 3
