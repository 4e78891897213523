"""Audit: a run's whole story, an account's timeline and past state, and a verify that
catches a corrupted read model."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from uuid import UUID

from application.audit import event_at, run_story
from application.bank import records
from domain.account import account_id
from gateway.bootstrap import Sluice
from tests.postgres import support


def test_the_story_of_a_run_shows_every_link(sluice: Sluice) -> None:
    alice = sluice.gateway.authenticate("sk-demo-alice")
    program = 'transfer(payer="alice", payee="bob", amount=4, memo="books")'
    proposal = sluice.gateway.proposals.propose(alice, "python", program, request="pay bob")
    outcome = sluice.gateway.confirm(alice, proposal.id, proposal.preview_hash)

    story = run_story(sluice.ledger, UUID(proposal.id))
    position = outcome.events[0].position
    assert position is not None  # committed
    debit = event_at(sluice.ledger, position)

    assert story.request == "pay bob"
    assert story.source == program
    assert story.preview_hash == proposal.preview_hash
    assert story.preview.events[0].data["memo"] == "books"
    assert story.confirmed_by == "alice" and story.confirmed_at
    assert [step.type for step in story.history] == ["Proposed", "Confirmed", "Committed"]
    assert [(e["account"], e["type"]) for e in story.committed_events] == [
        ("alice", "TransferDebited"),
        ("bob", "TransferCredited"),
    ]
    assert debit is not None
    assert debit["run"]["run_id"] == proposal.id
    assert debit["run"]["program_excerpt"] == program


def test_an_accounts_timeline_names_run_principal_and_confirmer(sluice: Sluice) -> None:
    timeline = sluice.operations.timeline("account", "bob")

    assert [item["type"].split(".")[-1] for item in timeline] == [
        "Opened",
        "TransferCredited",
        "TransferCredited",
        "TransferCredited",
    ]
    assert all(item["run"] and item["run"]["principal"] in {"admin", "alice"} for item in timeline)
    assert timeline[1]["run"]["confirmed_by"] == "alice"


def test_as_of_gives_the_historical_balance(sluice: Sluice) -> None:
    timeline = sluice.operations.timeline("account", "bob")
    after_first = timeline[1]["position"]
    moment = datetime.fromisoformat(timeline[2]["timestamp"])

    at_position = sluice.operations.as_of("account", "bob", position=after_first)
    at_time = sluice.operations.as_of("account", "bob", at=moment)
    before_opening = sluice.operations.as_of("account", "bob", position=timeline[0]["position"] - 1)

    assert (at_position["balance"], at_position["version"]) == ("5.00", 2)
    assert (at_time["balance"], at_time["version"]) == ("12.00", 3)
    assert before_opening["exists"] is False


def test_verify_passes_then_catches_a_corrupted_read_model_row(sluice: Sluice) -> None:
    sluice.read_models.catch_up()
    _, clean = sluice.operations.verify(sluice.read_models)
    assert all(check.ok for check in clean), [c.to_json() for c in clean if not c.ok]

    corrupt_balance(sluice, "bob", Decimal("1000000.00"))
    _, checks = sluice.operations.verify(sluice.read_models)

    failed = {check.name: check.details for check in checks if not check.ok}
    assert list(failed) == ["balances recomputed from the log equal the read model"]
    assert failed["balances recomputed from the log equal the read model"] == [
        "bob: log says 23.00, read model says 1000000.00"
    ]


def corrupt_balance(sluice: Sluice, account: str, balance: Decimal) -> None:
    """Change a read-model row behind the projections' back, as a faulty tool would."""
    key = account_id(account).hex
    view = sluice.read_models.store
    row = records.balance_records(view, [key])[key]
    body = records.balance_change(key, replace(row, balance=balance)).body
    url = sluice.database_url
    if url.startswith("sqlite"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
            db.execute(
                "UPDATE rm_documents SET body = ? WHERE projection = ? AND key = ?",
                (body, records.BALANCES, key),
            )
    elif url.startswith("postgresql"):
        schema = url.rsplit("schema=", 1)[1]
        with support.admin_connection() as db:
            db.execute(
                f'UPDATE "{schema}".rm_documents SET body = %s WHERE projection = %s AND key = %s',
                (body, records.BALANCES, key),
            )
    else:
        stored = view._documents[(records.BALANCES, key)]  # type: ignore[attr-defined]
        view._documents[(records.BALANCES, key)] = replace(stored, body=body)  # type: ignore[attr-defined]
