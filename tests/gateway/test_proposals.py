"""P2 and P3: what you confirmed is what commits, once; a stale preview commits nothing."""

from __future__ import annotations

import base64
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from application.ledger import Ledger
from application.principals import PrincipalView
from application.store_config import eventsourcing_env
from gateway.core.catalog import Catalog
from gateway.core.errors import GatewayError, StaleProposalError
from gateway.core.facade import Gateway
from gateway.core.program.sandbox import Sandbox
from tests.conftest import TEST_CAPS, Clock
from tests.gateway.conftest import accounts_state, make_gateway

PAY_BOB = 'transfer(payer="alice", payee="bob", amount=30, memo="rent")'


def log_tail(ledger: Ledger, after: int) -> list[tuple[str, int, str, bytes]]:
    notes = ledger.recorder.select_notifications(after + 1, 1000)
    return [(str(n.originator_id), n.originator_version, n.topic, n.state) for n in notes]


def test_a_proposal_shows_its_preview_and_waits_for_confirmation(
    gateway: Gateway, who: Callable[[str], PrincipalView], clock: Clock
) -> None:
    before = accounts_state(gateway.ledger)

    proposal = gateway.propose(who("alice"), "python", PAY_BOB)

    assert {"id", "status", "preview", "preview_hash", "expires_at"} <= set(proposal.model_dump())
    assert proposal.status == "pending"
    assert {"events", "calls", "result"} <= set(proposal.preview.model_dump())
    assert [e.type for e in proposal.preview.events] == [
        "TransferDebited",
        "TransferCredited",
    ]
    assert proposal.preview.calls[0].name == "transfer"
    assert proposal.preview.caps["transfer"] == {"used": 1, "limit": 10}
    assert proposal.expires_at == "2026-11-29T12:15:00+00:00"
    assert len(proposal.preview_hash) == 64
    assert accounts_state(gateway.ledger) == before


def test_confirming_commits_exactly_the_previewed_events(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    proposal = gateway.propose(alice, "python", PAY_BOB)
    run: Any = gateway.ledger.repository.get(UUID(proposal.id))
    end = gateway.ledger.recorder.max_notification_id() or 0

    outcome = gateway.confirm(alice, proposal.id, proposal.preview_hash)

    assert (outcome.status, outcome.changed, outcome.error) == ("committed", 2, None)
    appended = log_tail(gateway.ledger, end)
    previewed = [
        (s["originator_id"], s["originator_version"], s["topic"], base64.b64decode(s["state"]))
        for s in run.stored_events
    ]
    assert appended[: len(previewed)] == previewed  # byte for byte, then the run's own events
    assert [t.rsplit(".", 1)[-1] for _, _, t, _ in appended[len(previewed) :]] == [
        "Confirmed",
        "Committed",
    ]
    assert [e.position for e in outcome.events] == [end + 1, end + 2]


def test_confirming_twice_commits_once(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    proposal = gateway.propose(alice, "python", PAY_BOB)
    first = gateway.confirm(alice, proposal.id, proposal.preview_hash)
    after_first = gateway.ledger.recorder.max_notification_id()

    second = gateway.confirm(alice, proposal.id, proposal.preview_hash)

    assert second.status == first.status == "committed"
    assert gateway.ledger.recorder.max_notification_id() == after_first
    assert accounts_state(gateway.ledger)["alice"][0] == Decimal("70.00")


def test_a_stale_preview_commits_nothing_and_comes_back_fresh(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    program = 'left = get_balance(account="alice")\nwithdraw(account="alice", amount=left)'
    proposal = gateway.propose(alice, "python", program)
    gateway.call(who("teller"), "deposit", {"account": "alice", "amount": 5})
    before = accounts_state(gateway.ledger)

    with pytest.raises(GatewayError) as stale:
        gateway.confirm(alice, proposal.id, proposal.preview_hash)

    assert stale.value.kind == "conflict"
    assert "nothing was written" in str(stale.value)
    assert accounts_state(gateway.ledger) == before
    fresh = stale.value.extra["proposal"]
    assert fresh["id"] == proposal.id
    assert fresh["status"] == "pending"
    assert fresh["preview_hash"] != proposal.preview_hash
    assert fresh["preview"]["events"][0]["data"]["amount"] == "105.00"
    # The fresh preview is what can be confirmed now; the old hash no longer can.
    with pytest.raises(GatewayError) as old:
        gateway.confirm(alice, proposal.id, proposal.preview_hash)
    assert old.value.kind == "wrong-preview-hash"  # nothing moved since the fresh preview
    outcome = gateway.confirm(alice, fresh["id"], fresh["preview_hash"])
    assert outcome.status == "committed"
    assert accounts_state(gateway.ledger)["alice"][0] == Decimal("0.00")


def test_a_stale_confirmation_carries_the_fresh_proposal_typed(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    program = 'left = get_balance(account="alice")\nwithdraw(account="alice", amount=left)'
    proposal = gateway.propose(alice, "python", program)
    gateway.call(who("teller"), "deposit", {"account": "alice", "amount": 5})

    with pytest.raises(StaleProposalError) as stale:
        gateway.confirm(alice, proposal.id, proposal.preview_hash)

    answer = stale.value.stale
    assert answer.run_id == proposal.id
    assert answer.message == stale.value.message
    fresh = stale.value.fresh
    assert fresh is not None and fresh is answer.proposal
    assert fresh.status == "pending"
    assert fresh.preview.events[0].data["amount"] == "105.00"
    assert fresh.outcome.changed == "nothing"
    # The JSON edges show the very same proposal, without its outcome.
    assert stale.value.extra["proposal"] == fresh.model_dump(mode="json", exclude={"outcome"})


def test_a_lost_update_is_refused_at_confirm(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    teller = who("teller")
    first = gateway.propose(teller, "python", 'withdraw(account="alice", amount=60)')
    second = gateway.propose(teller, "python", 'withdraw(account="alice", amount=60)')
    gateway.confirm(teller, first.id, first.preview_hash)
    before = accounts_state(gateway.ledger)

    with pytest.raises(GatewayError) as refused:
        gateway.confirm(teller, second.id, second.preview_hash)

    assert refused.value.kind == "conflict"
    assert "alice has only 40.00" in str(refused.value)
    assert accounts_state(gateway.ledger) == before
    assert gateway.proposal(teller, second.id).status == "failed"


def test_a_write_skew_is_refused_at_confirm(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    teller = who("teller")
    gateway.call(teller, "deposit", {"account": "bob", "amount": 50})
    gateway.call(teller, "withdraw", {"account": "alice", "amount": 50})
    # alice 50, bob 50: each program alone keeps at least 40 in total; both would not.
    keep_forty = (
        'total = get_balance(account="alice") + get_balance(account="bob")\n'
        'if total - 40 >= 40:\n    withdraw(account="{}", amount=40)'
    )
    from_alice = gateway.propose(teller, "python", keep_forty.format("alice"))
    from_bob = gateway.propose(teller, "python", keep_forty.format("bob"))
    gateway.confirm(teller, from_alice.id, from_alice.preview_hash)
    before = accounts_state(gateway.ledger)

    with pytest.raises(GatewayError) as refused:
        gateway.confirm(teller, from_bob.id, from_bob.preview_hash)

    assert refused.value.kind == "conflict"
    assert accounts_state(gateway.ledger) == before
    # Re-run on the new state, the program decides not to withdraw: nothing to confirm.
    assert refused.value.extra["proposal"]["preview"]["events"] == []


def test_a_listing_is_guarded_against_accounts_opened_since_the_preview(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    # A program that decides on the set of accounts: one euro to each of them.
    teller = who("teller")
    to_everyone = 'for a in list_accounts():\n    deposit(account=a["account"], amount=1)'
    proposal = gateway.propose(teller, "python", to_everyone)
    gateway.call(teller, "open_account", {"account": "dan", "owner": "Dan"})
    before = accounts_state(gateway.ledger)

    with pytest.raises(GatewayError) as phantom:
        gateway.confirm(teller, proposal.id, proposal.preview_hash)

    assert phantom.value.kind == "conflict"
    assert accounts_state(gateway.ledger) == before
    fresh = phantom.value.extra["proposal"]
    assert [e["account"] for e in fresh["preview"]["events"]] == ["alice", "bob", "carla", "dan"]
    outcome = gateway.confirm(teller, fresh["id"], fresh["preview_hash"])
    assert outcome.changed == 4
    assert accounts_state(gateway.ledger)["dan"][0] == Decimal("1.00")


def test_a_wrong_hash_commits_nothing(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    proposal = gateway.propose(alice, "python", PAY_BOB)
    before = accounts_state(gateway.ledger)

    with pytest.raises(GatewayError) as refused:
        gateway.confirm(alice, proposal.id, "0" * 64)

    assert refused.value.kind == "wrong-preview-hash"
    assert "is not the current preview" in str(refused.value)
    assert accounts_state(gateway.ledger) == before


def test_rejection_and_expiry_end_a_proposal(
    gateway: Gateway, who: Callable[[str], PrincipalView], clock: Clock
) -> None:
    alice = who("alice")
    rejected = gateway.propose(alice, "python", PAY_BOB)
    expiring = gateway.propose(alice, "python", PAY_BOB)
    before = accounts_state(gateway.ledger)

    assert gateway.reject(alice, rejected.id).status == "rejected"
    clock.advance(15 * 60)
    assert gateway.proposal(alice, expiring.id).status == "expired"  # read before any confirm
    with pytest.raises(GatewayError) as gone_rejected:
        gateway.confirm(alice, rejected.id, rejected.preview_hash)
    with pytest.raises(GatewayError) as gone_expired:
        gateway.confirm(alice, expiring.id, expiring.preview_hash)

    assert (gone_rejected.value.kind, gone_expired.value.kind) == ("gone", "gone")
    assert "is rejected" in str(gone_rejected.value)
    assert "expired at 2026-11-29T12:15:00+00:00" in str(gone_expired.value)
    assert gateway.proposal(alice, expiring.id).status == "expired"
    assert accounts_state(gateway.ledger) == before


def test_only_the_proposer_confirms_and_only_auditors_read_others_proposals(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    proposal = gateway.propose(who("alice"), "python", PAY_BOB)

    with pytest.raises(GatewayError) as refused:
        gateway.confirm(who("bob"), proposal.id, proposal.preview_hash)
    with pytest.raises(GatewayError) as hidden:
        gateway.proposal(who("bob"), proposal.id)
    seen = gateway.proposal(who("auditor"), proposal.id)

    assert (refused.value.kind, hidden.value.kind) == ("forbidden", "forbidden")
    assert str(refused.value) == f"proposal {proposal.id} belongs to principal alice"
    assert seen.status == "pending"
    with pytest.raises(GatewayError) as missing:
        gateway.proposal(who("alice"), "not-a-run")
    assert missing.value.kind == "not-found"
    assert str(missing.value).startswith("no proposal not-a-run: ")


def test_a_read_only_program_completes_at_once_unless_configured_otherwise(
    ledger: Ledger, catalog: Catalog, sandbox: Sandbox, clock: Clock
) -> None:
    from dataclasses import replace

    from application import principals
    from gateway.demo import seed

    at_once = make_gateway(ledger, catalog, sandbox, clock)
    seed(at_once)
    waiting = make_gateway(
        ledger, catalog, sandbox, clock, replace(TEST_CAPS, complete_reads_at_once=False)
    )
    alice = principals.find(ledger, "alice")
    assert alice is not None

    done = at_once.propose(alice, "python", 'get_balance(account="alice")')
    pending = waiting.propose(alice, "python", 'get_balance(account="alice")')

    assert (done.status, done.outcome.result) == ("committed", "100.00")
    assert pending.status == "pending"


def test_a_proposal_survives_a_restart_and_is_confirmed_by_another_process(
    tmp_path: Path, catalog: Catalog, sandbox: Sandbox
) -> None:
    from application import principals
    from gateway.demo import seed

    clock = Clock(datetime.now(UTC))  # the other process reads the real time

    url = f"sqlite:///{tmp_path / 'shared.db'}"
    with Ledger(env=eventsourcing_env(url)) as ledger:
        proposing = make_gateway(ledger, catalog, sandbox, clock)
        seed(proposing)
        alice = principals.find(ledger, "alice")
        assert alice is not None
        proposal = proposing.propose(alice, "python", PAY_BOB)

    confirm = (
        "import json, sys\n"
        "from gateway.bootstrap import Sluice\n"
        "with Sluice(sys.argv[1]) as sluice:\n"
        "    alice = sluice.gateway.authenticate('sk-demo-alice')\n"
        "    outcome = sluice.gateway.confirm(alice, sys.argv[2], sys.argv[3])\n"
        "    print(json.dumps(outcome.model_dump(mode='json')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", confirm, url, proposal.id, proposal.preview_hash],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )

    assert done.returncode == 0, done.stderr
    assert '"status": "committed"' in done.stdout
    with Ledger(env=eventsourcing_env(url)) as reopened:
        assert accounts_state(reopened)["bob"][0] == Decimal("30.00")


# A confirmation in the process that proposed takes the run as that process saved it; what
# another process did to the run meanwhile still decides the answer, and nothing is written.


@pytest.fixture
def elsewhere(gateway: Gateway, catalog: Catalog, sandbox: Sandbox, clock: Clock) -> Gateway:
    """Another gateway on the same store: runs it proposes or decides are not the first's."""
    return make_gateway(gateway.ledger, catalog, sandbox, clock)


def test_a_proposal_rejected_elsewhere_is_gone_when_confirmed_where_it_was_proposed(
    gateway: Gateway, elsewhere: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    proposal = gateway.propose(alice, "python", PAY_BOB)
    elsewhere.reject(alice, proposal.id)
    before = accounts_state(gateway.ledger)

    with pytest.raises(GatewayError) as refused:
        gateway.confirm(alice, proposal.id, proposal.preview_hash)

    assert refused.value.kind == "gone"
    assert "is rejected" in str(refused.value)
    assert accounts_state(gateway.ledger) == before
    assert gateway.proposal(alice, proposal.id).status == "rejected"


def test_a_proposal_previewed_again_elsewhere_commits_only_its_new_preview(
    gateway: Gateway, elsewhere: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    proposal = gateway.propose(alice, "python", PAY_BOB)
    elsewhere.call(who("teller"), "deposit", {"account": "alice", "amount": 5})
    fresh = elsewhere.refresh(alice, proposal.id)
    before = accounts_state(gateway.ledger)

    with pytest.raises(StaleProposalError):
        gateway.confirm(alice, proposal.id, proposal.preview_hash)
    assert accounts_state(gateway.ledger) == before

    outcome = gateway.confirm(alice, proposal.id, fresh.preview_hash)
    assert outcome.status == "committed"
    assert accounts_state(gateway.ledger)["bob"][0] == before["bob"][0] + Decimal("30.00")


def test_a_proposal_confirmed_elsewhere_is_committed_once_when_confirmed_where_proposed(
    gateway: Gateway, elsewhere: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    proposal = gateway.propose(alice, "python", PAY_BOB)
    first = elsewhere.confirm(alice, proposal.id, proposal.preview_hash)
    after_first = accounts_state(gateway.ledger)

    again = gateway.confirm(alice, proposal.id, proposal.preview_hash)

    assert (first.status, again.status) == ("committed", "committed")
    assert accounts_state(gateway.ledger) == after_first


def test_a_proposal_previewed_again_where_it_was_proposed_commits_its_new_preview(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    proposal = gateway.propose(alice, "python", PAY_BOB)
    gateway.call(who("teller"), "deposit", {"account": "alice", "amount": 5})
    fresh = gateway.refresh(alice, proposal.id)
    assert fresh.preview_hash != proposal.preview_hash
    before = accounts_state(gateway.ledger)

    outcome = gateway.confirm(alice, proposal.id, fresh.preview_hash)

    assert outcome.status == "committed"
    assert accounts_state(gateway.ledger)["bob"][0] == before["bob"][0] + Decimal("30.00")
