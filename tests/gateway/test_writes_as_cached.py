"""A direct write first tries on the accounts as its process last saw them (no store read),
and never answers from them: what another process wrote since is what the write acts on,
refuses on, and reports (Gateway.call, UnitOfWork(as_cached=True))."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from application import principals
from application.ledger import Ledger
from application.store_config import eventsourcing_env
from application.unit_of_work import UnitOfWork
from domain.account import Account
from gateway.core.catalog import Catalog
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from tests.conftest import Clock
from tests.gateway.conftest import accounts_state, make_gateway
from tests.stores import empty_store

NOON = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def two_gateways(
    request: pytest.FixtureRequest, tmp_path: Path, catalog: Catalog, sandbox: Sandbox
) -> Iterator[tuple[Gateway, Gateway]]:
    """Two gateways on one store, each with its own ledger and cache, as two processes."""
    with (
        empty_store(request.param, tmp_path) as url,
        Ledger(env=eventsourcing_env(url)) as here_ledger,
        Ledger(env=eventsourcing_env(url)) as there_ledger,
    ):
        here = make_gateway(here_ledger, catalog, sandbox, Clock(NOON))
        seed(here)
        there = make_gateway(there_ledger, catalog, sandbox, Clock(NOON))
        yield here, there


def call(gateway: Gateway, who: str, name: str, **arguments: Any) -> Any:
    principal = principals.find(gateway.ledger, who)
    assert principal is not None, who
    outcome = gateway.call(principal, name, arguments)
    assert outcome.status == "committed", outcome
    return outcome.result


def balance(gateway: Gateway, account: str) -> Decimal:
    return gateway.ledger.load_keyed(Account, account).balance


def test_a_write_reports_the_balance_another_process_left(
    two_gateways: tuple[Gateway, Gateway],
) -> None:
    here, there = two_gateways
    call(here, "alice", "transfer", payer="alice", payee="bob", amount=10)  # here caches both
    call(there, "teller", "deposit", account="alice", amount=10)  # alice 100.00 as stored

    receipt = call(here, "alice", "transfer", payer="alice", payee="bob", amount=5)

    assert Decimal(receipt["payer_balance"]) == Decimal("95.00")
    assert (balance(there, "alice"), balance(there, "bob")) == (Decimal("95.00"), Decimal("15"))
    # Each movement is in the log once: alice's events are opened, deposited, 3 movements.
    assert [type(e).__name__ for e in there.ledger.events_of(Account.id_for("alice"))] == [
        "Opened",
        "Deposited",
        "TransferDebited",
        "Deposited",
        "TransferDebited",
    ]


def test_a_write_refused_on_what_this_process_saw_is_done_on_what_is_stored(
    two_gateways: tuple[Gateway, Gateway],
) -> None:
    here, there = two_gateways
    call(here, "alice", "transfer", payer="alice", payee="bob", amount=90)  # here: alice 10
    call(there, "teller", "deposit", account="alice", amount=50)  # stored: alice 60

    receipt = call(here, "alice", "transfer", payer="alice", payee="bob", amount=40)

    assert Decimal(receipt["payer_balance"]) == Decimal("20.00")
    assert balance(there, "bob") == Decimal("130.00")


def test_a_refusal_names_the_stored_balance_and_is_recorded_once(
    two_gateways: tuple[Gateway, Gateway],
) -> None:
    here, there = two_gateways
    call(here, "alice", "transfer", payer="alice", payee="bob", amount=10)  # here: alice 90
    call(there, "teller", "withdraw", account="alice", amount=85)  # stored: alice 5
    before = accounts_state(there.ledger)
    position = there.ledger.recorder.max_notification_id()

    with pytest.raises(GatewayError) as refused:
        call(here, "alice", "transfer", payer="alice", payee="bob", amount=10)

    assert refused.value.kind == "refused"
    assert "5.00" in str(refused.value), str(refused.value)
    assert accounts_state(there.ledger) == before
    # The refusal's failed run, once: the try on the cached accounts records nothing.
    appended = there.ledger.recorder.select_notifications((position or 0) + 1, 10)
    assert [n.topic.rsplit(":", 1)[1] for n in appended] == ["Run.Proposed", "Run.Failed"]
    assert {str(n.originator_id) for n in appended} == {refused.value.run_id}


def test_a_read_is_never_answered_from_what_this_process_saw(
    two_gateways: tuple[Gateway, Gateway],
) -> None:
    here, there = two_gateways
    call(here, "alice", "transfer", payer="alice", payee="bob", amount=10)
    call(there, "teller", "deposit", account="bob", amount=7)

    assert Decimal(call(here, "bob", "get_balance", account="bob")) == Decimal("17.00")


def test_the_cache_keeps_the_newest_of_what_was_committed(
    two_gateways: tuple[Gateway, Gateway],
) -> None:
    here, _ = two_gateways
    ledger = here.ledger
    older = ledger.load_keyed(Account, "alice")
    call(here, "alice", "transfer", payer="alice", payee="bob", amount=1)

    ledger.remember(older)  # a commit of an older version, finishing late

    with UnitOfWork(ledger, as_cached=True) as uow:
        cached = uow.get(Account, "alice")
        assert (cached.version, cached.balance) == (older.version + 1, older.balance - 1)
        # What the unit of work changes is its own copy, not the cached one.
        cached.deposit(Decimal(3))
    with UnitOfWork(ledger, as_cached=True) as uow:
        assert uow.get(Account, "alice").balance == older.balance - 1
