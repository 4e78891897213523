"""Faults: a server that is not there, a lock that is not granted, a connection killed."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from uuid import UUID, uuid4

import pytest
from eventsourcing.application import Application
from eventsourcing.persistence import OperationalError, StoredEvent

from domain.account import Account, account_id
from infrastructure.postgres import (
    AsyncpgApplicationRecorder,
    ConnectionLostError,
    LockTimeoutError,
    PoolTimeoutError,
    RetryableError,
    StoreUnavailableError,
)
from infrastructure.postgres.driver import Connection
from tests.postgres import support
from tests.postgres.test_read_set import wait_for_lock_waiters

pytestmark = pytest.mark.postgres


class Bank(Application[UUID]):
    pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def event(originator_id: UUID | None = None, version: int = 1) -> StoredEvent:
    return StoredEvent(originator_id or uuid4(), version, "topic", b"state")


@pytest.fixture
def recorder(schema: str) -> Iterator[AsyncpgApplicationRecorder]:
    datastore = support.datastore(schema, lock_timeout=1, pool_size=1, max_overflow=0)
    recorder = AsyncpgApplicationRecorder(datastore)
    recorder.create_table()
    yield recorder
    datastore.close()


def test_connection_refused_names_host_and_port(schema: str) -> None:
    port = free_port()
    env = {**support.env_for(schema), "POSTGRES_HOST": "127.0.0.1", "POSTGRES_PORT": str(port)}
    started = time.monotonic()
    with pytest.raises(StoreUnavailableError) as refused:
        Bank(env=env)
    assert time.monotonic() - started < 5
    assert f"127.0.0.1:{port}" in str(refused.value)
    assert "refused" in str(refused.value)
    assert (refused.value.host, refused.value.port) == ("127.0.0.1", port)
    assert isinstance(refused.value, OperationalError)


def test_a_lock_timeout_is_retryable(recorder: AsyncpgApplicationRecorder) -> None:
    stored = [event()]
    with support.admin_connection() as holder, holder.transaction():
        holder.execute(f"LOCK TABLE {recorder.events_sql.qualified} IN EXCLUSIVE MODE")
        started = time.monotonic()
        with pytest.raises(LockTimeoutError) as timed_out:
            recorder.insert_events(stored)
        waited = time.monotonic() - started
    assert 0.9 < waited < 5
    assert isinstance(timed_out.value, RetryableError)
    assert isinstance(timed_out.value, OperationalError)
    assert "lock timeout" in str(timed_out.value)
    assert recorder.max_notification_id() is None
    # Retryable means exactly that: the same call, made again, now succeeds.
    assert recorder.insert_events(stored) is not None
    assert len(recorder.select_events(stored[0].originator_id)) == 1


def test_a_connection_killed_mid_insert_writes_nothing_and_the_pool_recovers(
    schema: str,
) -> None:
    env = {**support.env_for(schema), "POSTGRES_POOL_SIZE": "1", "POSTGRES_MAX_OVERFLOW": "0"}
    bank = Bank(env=env)
    recorder = bank.recorder
    assert isinstance(recorder, AsyncpgApplicationRecorder)
    try:
        killed_pid = server_pid(recorder)
        alice = Account(account="alice", owner="Alice")
        alice.deposit(Decimal("10"), "first")
        errors: list[BaseException] = []

        def save() -> None:
            try:
                bank.save(alice)
            except BaseException as exc:
                errors.append(exc)

        # Hold the insert lock so that the save is caught inside its insert.
        with support.admin_connection() as holder, holder.transaction():
            holder.execute(f"LOCK TABLE {recorder.events_sql.qualified} IN EXCLUSIVE MODE")
            saver = threading.Thread(target=save)
            saver.start()
            wait_for_lock_waiters(schema, 1)
            with support.admin_connection() as killer:
                killer.execute("SELECT pg_terminate_backend(%s)", (killed_pid,))
            saver.join(timeout=10)
        assert len(errors) == 1
        assert isinstance(errors[0], ConnectionLostError)
        assert isinstance(errors[0], OperationalError)
        assert recorder.select_events(account_id("alice")) == []
        assert recorder.max_notification_id() is None

        bob = Account(account="bob", owner="Bob")
        bob.deposit(Decimal("5"), "first")
        bank.save(bob)
        assert bank.repository.get(account_id("bob")).balance == Decimal("5")
        assert server_pid(recorder) != killed_pid
    finally:
        bank.close()


def test_an_idle_connection_killed_is_replaced_before_use(
    recorder: AsyncpgApplicationRecorder,
) -> None:
    killed_pid = server_pid(recorder)
    with support.admin_connection() as killer:
        killer.execute("SELECT pg_terminate_backend(%s)", (killed_pid,))
    time.sleep(0.2)
    # Even a write, which is never retried, goes through: the stale
    # connection is noticed before anything is sent on it.
    assert recorder.insert_events([event()]) == [1]
    assert server_pid(recorder) != killed_pid


def server_pid(recorder: AsyncpgApplicationRecorder) -> int:
    async def pid(conn: Connection) -> int:
        return conn.get_server_pid()

    return recorder.datastore.run(pid)


def test_a_full_pool_gives_a_retryable_timeout(schema: str) -> None:
    datastore = support.datastore(schema, pool_size=1, max_overflow=0, connect_timeout=1)
    recorder = AsyncpgApplicationRecorder(datastore)
    recorder.create_table()
    try:
        with support.admin_connection() as holder, holder.transaction():
            holder.execute(f"LOCK TABLE {recorder.events_sql.qualified} IN EXCLUSIVE MODE")
            # The only connection waits for the lock inside an insert...
            busy = threading.Thread(target=recorder.insert_events, args=([event()],))
            busy.start()
            wait_for_lock_waiters(schema, 1)
            # ...so another caller gives up after POSTGRES_CONNECT_TIMEOUT.
            with pytest.raises(PoolTimeoutError) as full:
                recorder.max_notification_id()
            assert isinstance(full.value, RetryableError)
        busy.join(timeout=10)
        assert recorder.max_notification_id() == 1
    finally:
        datastore.close()
