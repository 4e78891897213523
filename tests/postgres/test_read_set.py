"""The read-set guard (P2): no lost update, no write skew, and no race between the checks."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from uuid import UUID

import pytest
from eventsourcing.application import Application
from eventsourcing.persistence import IntegrityError

from domain.account import Account, account_id
from infrastructure import read_set
from infrastructure.postgres import AsyncpgApplicationRecorder, ReadSetConflictError
from tests.postgres import support

pytestmark = pytest.mark.postgres


class Bank(Application[UUID]):
    pass


@pytest.fixture
def bank(schema: str) -> Iterator[Bank]:
    app = Bank(env=support.env_for(schema))
    yield app
    app.close()


def open_accounts(bank: Bank, **balances: str) -> None:
    accounts = []
    for name, balance in balances.items():
        account = Account(account=name, owner=name.title())
        account.deposit(Decimal(balance), "opening")
        accounts.append(account)
    bank.save(*accounts)


def get(bank: Bank, name: str) -> Account:
    account: Account = bank.repository.get(account_id(name))
    return account


def log_length(bank: Bank) -> int | None:
    return bank.recorder.max_notification_id()


def test_a_lost_update_is_refused(bank: Bank) -> None:
    open_accounts(bank, alice="100")
    first, second = get(bank, "alice"), get(bank, "alice")

    first.withdraw(Decimal("60"), "rent")
    bank.save(first)
    second.withdraw(Decimal("60"), "car")
    with pytest.raises(IntegrityError):
        bank.save(second)

    assert get(bank, "alice").balance == Decimal("40")


def test_write_skew_is_refused_and_nothing_is_written(bank: Bank) -> None:
    # A joint rule: alice and bob together keep at least 50. Each unit of
    # work reads both, sees 100, and takes 40 from a different account.
    open_accounts(bank, alice="50", bob="50")
    a1, b1 = get(bank, "alice"), get(bank, "bob")
    a2, b2 = get(bank, "alice"), get(bank, "bob")

    a1.withdraw(Decimal("40"), "first")
    bank.save(a1, read_versions={b1.id: b1.version})
    before = log_length(bank)

    b2.withdraw(Decimal("40"), "second")
    with pytest.raises(ReadSetConflictError) as refused:
        bank.save(b2, read_versions={a2.id: a2.version})

    message = str(refused.value)
    assert isinstance(refused.value, read_set.ReadSetConflictError)
    assert str(a2.id) in message
    assert f"read at version {a2.version}" in message
    assert f"now at version {a2.version + 1}" in message
    assert refused.value.originator_id == a2.id
    assert (refused.value.read_version, refused.value.current_version) == (2, 3)
    assert isinstance(refused.value, IntegrityError)
    assert log_length(bank) == before
    assert get(bank, "bob").version == b1.version
    assert get(bank, "bob").balance == Decimal("50")


def test_an_unchanged_read_set_commits(bank: Bank) -> None:
    open_accounts(bank, alice="50", bob="50")
    alice, bob = get(bank, "alice"), get(bank, "bob")
    alice.debit_transfer(Decimal("10"), "bob", "gift")
    bank.save(alice, read_versions={bob.id: bob.version})
    assert get(bank, "alice").balance == Decimal("40")


def test_version_zero_guards_against_an_aggregate_appearing(bank: Bank) -> None:
    open_accounts(bank, alice="50")
    alice = get(bank, "alice")
    open_accounts(bank, carol="1")
    alice.withdraw(Decimal("1"), "carol was not there")
    with pytest.raises(ReadSetConflictError):
        bank.save(alice, read_versions={account_id("carol"): 0})


def test_concurrent_write_skew_lets_exactly_one_commit(bank: Bank, schema: str) -> None:
    # Both saves are held at the insert lock, so both start their checks
    # only after the other may have committed: a check made before the lock
    # (or outside the insert's transaction) would let both through.
    open_accounts(bank, alice="50", bob="50")
    a1, b1 = get(bank, "alice"), get(bank, "bob")
    a2, b2 = get(bank, "alice"), get(bank, "bob")
    a1.withdraw(Decimal("40"), "first")
    b2.withdraw(Decimal("40"), "second")
    recorder = bank.recorder
    assert isinstance(recorder, AsyncpgApplicationRecorder)
    outcomes: list[BaseException | None] = []

    def save(account: Account, read: Account) -> None:
        try:
            bank.save(account, read_versions={read.id: read.version})
        except BaseException as exc:
            outcomes.append(exc)
        else:
            outcomes.append(None)

    with support.admin_connection() as holder, holder.transaction():
        holder.execute(f"LOCK TABLE {recorder.events_sql.qualified} IN EXCLUSIVE MODE")
        threads = [
            threading.Thread(target=save, args=(a1, b1)),
            threading.Thread(target=save, args=(b2, a2)),
        ]
        for thread in threads:
            thread.start()
        wait_for_lock_waiters(schema, 2)
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(type(o).__name__ for o in outcomes) == ["NoneType", "ReadSetConflictError"]
    total = get(bank, "alice").balance + get(bank, "bob").balance
    assert total == Decimal("60")


def wait_for_lock_waiters(schema: str, count: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    with support.admin_connection() as conn:
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE wait_event_type = 'Lock' AND query LIKE %s",
                (f'%"{schema}"%',),
            ).fetchone()
            if row is not None and row[0] >= count:
                return
            time.sleep(0.02)
    msg = f"{count} sessions never waited for the insert lock"
    raise AssertionError(msg)
