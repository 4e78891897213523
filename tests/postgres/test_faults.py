"""Faults: a server that is not there, a lock that is not granted, a connection killed."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from uuid import UUID, uuid4

import pytest
from eventsourcing.application import Application
from eventsourcing.persistence import OperationalError, StoredEvent

from domain.account import Account, account_id
from infrastructure.postgres import (
    AsyncpgApplicationRecorder,
    AsyncpgDatastore,
    ConnectionLostError,
    LockTimeoutError,
    PoolTimeoutError,
    RetryableError,
    StatementTimeoutError,
    StoreUnavailableError,
)
from infrastructure.postgres.driver import Connection
from tests.postgres import support
from tests.postgres.test_read_set import wait_for_lock_waiters
from tests.tcp_proxy import Proxy, proxy

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
    assert refused.value.address == f"127.0.0.1:{port}"
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


@pytest.fixture
def through_a_proxy(schema: str) -> Iterator[tuple[Proxy, AsyncpgApplicationRecorder]]:
    """A recorder with one connection, reached through a proxy that can hold replies."""
    server = (support.base_settings().host, support.base_settings().port)
    with proxy(server) as link:
        datastore = support.datastore(schema, port=link.port, pool_size=1, max_overflow=0)
        recorder = AsyncpgApplicationRecorder(datastore)
        recorder.create_table()
        yield link, recorder
        datastore.close()


def kill_as_it_answers(link: Proxy, pid: int, call: Callable[[], object]) -> list[object]:
    """Make `call`; terminate backend `pid` once the server has answered what the client
    asked last; deliver that answer and the termination notice in one read."""
    link.hold()
    outcome: list[object] = []

    def make_call() -> None:
        try:
            outcome.append(call())
        except Exception as exc:
            outcome.append(exc)

    caller = threading.Thread(target=make_call)
    caller.start()
    deadline = time.monotonic() + 10
    while not link.held() and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(0.05)  # the rest of the answer, if it comes in pieces
    with support.admin_connection() as killer:
        killer.execute("SELECT pg_terminate_backend(%s)", (pid,))
    assert link.server_closed.wait(10)
    link.release()
    caller.join(timeout=10)
    return outcome


def test_a_termination_read_with_the_last_reply_is_noticed_before_the_next_call(
    through_a_proxy: tuple[Proxy, AsyncpgApplicationRecorder],
) -> None:
    # The server ends a session just as it answers: its FATAL notice reaches the client
    # in the same read as the reply. asyncpg takes that notice for a protocol error and
    # the socket still looks idle (no end of file yet), so the lane must not lend the
    # connection again: the next call would fail with "cannot switch to state 12;
    # another operation (2) is in progress".
    link, recorder = through_a_proxy
    killed_pid = server_pid(recorder)
    assert recorder.max_notification_id() is None  # its statement is now prepared

    assert kill_as_it_answers(link, killed_pid, recorder.max_notification_id) == [None]

    # Even a write, which is never retried, goes through: on a new connection.
    assert recorder.insert_events([event()]) == [1]
    assert server_pid(recorder) != killed_pid


def test_a_termination_between_two_steps_of_a_read_is_retried_on_a_new_connection(
    through_a_proxy: tuple[Proxy, AsyncpgApplicationRecorder],
) -> None:
    # A first read prepares its statement, then runs it. The session ends right after the
    # prepare: the run is refused by asyncpg's protocol state, the connection is dropped,
    # and the read (which may be repeated) is made again on a new connection.
    link, recorder = through_a_proxy
    killed_pid = server_pid(recorder)

    assert kill_as_it_answers(link, killed_pid, recorder.max_notification_id) == [None]
    assert server_pid(recorder) != killed_pid


def test_a_termination_between_two_steps_of_a_write_is_a_lost_connection(
    through_a_proxy: tuple[Proxy, AsyncpgApplicationRecorder],
) -> None:
    link, recorder = through_a_proxy
    killed_pid = server_pid(recorder)

    [outcome] = kill_as_it_answers(link, killed_pid, lambda: recorder.insert_events([event()]))

    assert isinstance(outcome, ConnectionLostError), repr(outcome)
    assert isinstance(outcome, OperationalError)
    assert recorder.max_notification_id() is None
    assert recorder.insert_events([event()]) == [1]


async def begin_and_return(conn: Connection) -> int:
    # A faulty call that leaves its transaction open.
    await conn.execute("BEGIN")
    return conn.get_server_pid()


async def pid_and_transaction(conn: Connection) -> tuple[int, bool]:
    return conn.get_server_pid(), conn.is_in_transaction()


def test_a_connection_left_in_a_transaction_is_never_lent_again(
    recorder: AsyncpgApplicationRecorder,
) -> None:
    datastore = recorder.datastore
    left_open = datastore.run(begin_and_return)
    pid, in_transaction = datastore.run(pid_and_transaction)
    assert (pid != left_open, in_transaction) == (True, False)


@pytest.mark.asyncio
async def test_the_async_pool_neither_lends_a_connection_left_in_a_transaction(
    recorder: AsyncpgApplicationRecorder,
) -> None:
    datastore = recorder.datastore
    left_open = await datastore.arun(begin_and_return)
    pid, in_transaction = await datastore.arun(pid_and_transaction)
    assert (pid != left_open, in_transaction) == (True, False)
    await datastore.aclose()


@pytest.mark.asyncio
async def test_a_call_cancelled_midway_ends_its_connection(
    recorder: AsyncpgApplicationRecorder,
) -> None:
    datastore = recorder.datastore
    first = await datastore.arun(pid_and_transaction)

    async def sleep(conn: Connection) -> None:
        await conn.execute("SELECT pg_sleep(10)")

    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(datastore.arun(sleep), 0.2)
    pid, _ = await datastore.arun(pid_and_transaction)
    assert pid != first[0]
    assert time.monotonic() - started < 5
    await datastore.aclose()


def test_a_statement_past_the_statement_timeout_is_retryable(schema: str) -> None:
    datastore = support.datastore(schema, statement_timeout=1, pool_size=1, max_overflow=0)

    async def slow(conn: Connection) -> None:
        await conn.execute("SELECT pg_sleep(5)")

    try:
        started = time.monotonic()
        with pytest.raises(StatementTimeoutError) as timed_out:
            datastore.run(slow)
        assert time.monotonic() - started < 4
        assert isinstance(timed_out.value, RetryableError)
        assert "statement timeout" in str(timed_out.value)
        # A clean server error: the same connection serves the next call.
        pid = server_pid_of(datastore)
        assert server_pid_of(datastore) == pid
    finally:
        datastore.close()


def server_pid_of(datastore: AsyncpgDatastore) -> int:
    async def pid(conn: Connection) -> int:
        return conn.get_server_pid()

    return datastore.run(pid)


def test_a_link_gone_silent_ends_the_call_a_little_after_the_statement_timeout(
    schema: str,
) -> None:
    # No reset, no end of file: the server's answer just never comes. Its statement
    # timeout cannot help; the client gives up 2 s after it, and drops the connection.
    server = (support.base_settings().host, support.base_settings().port)
    with proxy(server) as link:
        datastore = support.datastore(
            schema, port=link.port, statement_timeout=1, pool_size=1, max_overflow=0
        )
        recorder = AsyncpgApplicationRecorder(datastore)
        recorder.create_table()
        try:
            silent_pid = server_pid(recorder)
            link.hold()
            started = time.monotonic()
            with pytest.raises(ConnectionLostError) as lost:
                recorder.insert_events([event()])
            waited = time.monotonic() - started
            assert 2.5 < waited < 6
            assert isinstance(lost.value, OperationalError)
            assert "did not answer in time" in str(lost.value)

            link.release()
            assert recorder.max_notification_id() in (None, 1)  # the insert may have landed
            assert server_pid(recorder) != silent_pid
        finally:
            datastore.close()
