"""The times of a run's events: each time a run shows is the time of the event that made it.

`confirmed_at` once held the proposal's time (the handler read `modified_on` before the
library moved it on). Each run here lives through its events at moments set apart, so a
time taken from the wrong event cannot pass.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta
from uuid import UUID

import pytest
from eventsourcing.domain import AggregateEvent

from application.audit import provenance, run_story
from application.bank.read_models import BANK_READ_MODELS
from application.principals import PrincipalView
from application.read_models.service import LIVE, ReadModels, open_read_model_store
from application.runs import proposal_of
from domain.run import Run
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.read_side import ReadSide
from tests.conftest import Clock

PAY = 'transfer(payer="alice", payee="bob", amount=12, memo="lunch")\n'
GAP = 0.02  # seconds between two steps of a run: well above the clock's resolution


def _times(gateway: Gateway, run_id: str) -> dict[str, datetime]:
    """Each event of the run by its class name, at its own timestamp."""
    events = gateway.ledger.events.get(UUID(run_id))
    return {type(e).__name__: e.timestamp for e in events if isinstance(e, AggregateEvent)}


def _stored(gateway: Gateway, run_id: str) -> Run:
    run: object = gateway.ledger.repository.get(UUID(run_id))
    assert isinstance(run, Run)
    return run


def _step() -> None:
    time.sleep(GAP)


def test_a_confirmed_run_shows_when_it_was_proposed_confirmed_and_committed(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    proposed = gateway.propose(alice, "python", PAY)
    _step()
    outcome = gateway.confirm(alice, proposed.id, proposed.preview_hash)
    times = _times(gateway, proposed.id)
    run = _stored(gateway, proposed.id)
    shown = proposal_of(run)

    assert times["Proposed"] < times["Confirmed"] <= times["Committed"]
    # The confirmation came a step after the proposal, not at its time.
    assert times["Confirmed"] - times["Proposed"] >= timedelta(seconds=GAP / 2)
    assert run.created_on == times["Proposed"]
    assert run.confirmed_at == times["Confirmed"]
    assert run.decided_at == times["Committed"]
    assert shown.created_at == times["Proposed"].isoformat()
    assert shown.confirmed_at == times["Confirmed"].isoformat()
    assert shown.decided_at == times["Committed"].isoformat()
    # The audit's ways to the same run say the same.
    story = run_story(gateway.ledger, run.id)
    assert story.confirmed_at == times["Confirmed"].isoformat()
    assert story.decided_at == times["Committed"].isoformat()
    assert [h.timestamp for h in story.history] == [t.isoformat() for t in times.values()]
    assert outcome.events[0].position is not None
    found = provenance(gateway.ledger, outcome.events[0].position)
    assert found is not None and found.confirmed_at == times["Confirmed"].isoformat()


def test_a_rejected_run_shows_when_it_was_rejected_and_was_never_confirmed(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    proposed = gateway.propose(alice, "python", PAY)
    _step()
    rejected = gateway.reject(alice, proposed.id)
    times = _times(gateway, proposed.id)

    assert times["Proposed"] < times["Rejected"]
    assert rejected.confirmed_at is None
    assert rejected.decided_at == times["Rejected"].isoformat()
    assert proposal_of(_stored(gateway, proposed.id)).decided_at == times["Rejected"].isoformat()


def test_an_expired_run_shows_when_its_expiry_was_recorded(
    gateway: Gateway, who: Callable[[str], PrincipalView], clock: Clock
) -> None:
    alice = who("alice")
    proposed = gateway.propose(alice, "python", PAY)
    clock.advance(gateway.caps.proposal_ttl_seconds + 1)
    _step()
    with pytest.raises(GatewayError) as gone:
        gateway.confirm(alice, proposed.id, proposed.preview_hash)
    assert gone.value.kind == "gone"
    times = _times(gateway, proposed.id)
    run = _stored(gateway, proposed.id)

    assert list(times) == ["Proposed", "Expired"]
    assert times["Proposed"] < times["Expired"]
    assert run.confirmed_at is None
    assert run.decided_at == times["Expired"]


def test_a_run_that_fails_after_a_fresh_preview_shows_each_of_its_times(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice, teller = who("alice"), who("teller")
    proposed = gateway.propose(alice, "python", 'withdraw(account="alice", amount=100)\n')
    _step()
    # The balance moves on: the proposal's fresh preview now fails.
    gateway.call(teller, "withdraw", {"account": "alice", "amount": 50})
    with pytest.raises(GatewayError) as stale:
        gateway.confirm(alice, proposed.id, proposed.preview_hash)
    assert stale.value.kind == "conflict"
    times = _times(gateway, proposed.id)
    run = _stored(gateway, proposed.id)

    assert list(times) == ["Proposed", "Failed"]
    assert times["Proposed"] < times["Failed"]
    assert run.status == "failed" and run.confirmed_at is None
    assert run.decided_at == times["Failed"]


def test_a_program_refused_at_once_shows_its_failure_at_its_own_time(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    with pytest.raises(GatewayError) as refused:
        gateway.propose(alice, "python", 'transfer(payer="alice", payee="dan", amount=1)\n')
    assert refused.value.run_id is not None
    times = _times(gateway, refused.value.run_id)
    run = _stored(gateway, refused.value.run_id)

    assert list(times) == ["Proposed", "Failed"]
    assert times["Proposed"] <= times["Failed"]
    assert run.decided_at == times["Failed"] and run.confirmed_at is None


def test_the_runs_read_model_and_the_run_story_hold_the_same_times(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    proposed = gateway.propose(alice, "python", PAY)
    _step()
    gateway.confirm(alice, proposed.id, proposed.preview_hash)
    times = _times(gateway, proposed.id)
    read_models = ReadModels(
        gateway.ledger, declared=BANK_READ_MODELS, view=open_read_model_store(gateway.ledger, LIVE)
    )
    read_models.catch_up()
    [row] = read_models.store.runs([proposed.id])
    story = ReadSide(gateway).run(who("auditor"), proposed.id)

    assert row.created_at == times["Proposed"].isoformat()
    assert row.decided_at == times["Committed"].isoformat()
    assert [(h.type, h.timestamp) for h in story.history] == [
        (name, moment.isoformat()) for name, moment in times.items()
    ]
    assert story.confirmed_at == times["Confirmed"].isoformat()
