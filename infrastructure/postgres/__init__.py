"""An eventsourcing persistence module on asyncpg: a drop-in for `eventsourcing.postgres`.

Select it with `PERSISTENCE_MODULE=infrastructure.postgres`; it reads the same
`POSTGRES_*` variables and makes and reads the same tables, so either module can
open a database the other made, and subscribers of either wake for inserts
made through the other (same NOTIFY channel).

Settings. Supported as in eventsourcing.postgres: POSTGRES_DBNAME, _HOST, _PORT,
_USER, _PASSWORD, _GET_PASSWORD_TOPIC, _SCHEMA (created if missing), _POOL_SIZE,
_MAX_OVERFLOW, _MAX_WAITING, _CONNECT_TIMEOUT (to connect, and to wait for a
free connection), _CONN_MAX_AGE, _PRE_PING, _LOCK_TIMEOUT, _IDLE_IN_TRANSACTION_
SESSION_TIMEOUT, ORIGINATOR_ID_TYPE (uuid or text), CREATE_TABLE and the
APPLICATION/TRACKING/PROCESS_RECORDER_TOPIC variables. Differences:
- POSTGRES_LOCK_TIMEOUT and the idle timeout are session settings sent when a
  connection opens (no SET LOCAL round trip per insert).
- Two more: POSTGRES_STATEMENT_TIMEOUT (seconds, 0 = none, as for the lock
  timeout; also sent when a connection opens, and 2 s past it the client stops
  waiting for an answer, for a link that went silent) and POSTGRES_APPLICATION_NAME
  (default "sluice"; how pg_stat_activity names this process's backends).
  The defaults here are eventsourcing's (no lock or statement timeout);
  SLUICE_DATABASE_URL brings bounded ones (application/store_config.py).
- POSTGRES_DSN: a libpq URL given to asyncpg whole, in place of POSTGRES_DBNAME, _HOST,
  _PORT, _USER and _PASSWORD: one host or several, with target_session_attrs
  (`postgresql://USER@H1:P1,H2:P2/DB?target_session_attrs=read-write`), so that new
  connections go to whichever server accepts writes, across a failover. SLUICE_DATABASE_URL
  is passed so. Connections to a server that no longer accepts writes are dropped
  (driver.left_clean), and a failed connect names every server of the URL. Each new
  connection asks which server it reached (its start time, address and port);
  `recorder.on_server_change(listener)` is told when that changes, before the connection
  is used (the ledger then forgets its cached aggregates).
- SINGLE_ROW_TRACKING=false (the legacy multi-row tracking table) is refused.
- POSTGRES_ENABLE_DB_FUNCTIONS is accepted and ignored: every insert here goes
  through a server function anyway, and that function keeps the commit-order
  lock, which eventsourcing's optional function path leaves out.
Each events table gets one more object, the function `<table>_insert_v1`,
created by create_table() or, with CREATE_TABLE=false, on first insert.

The bridge (lanes.py). eventsourcing calls recorders synchronously; asyncpg is
asyncio. A lane is a private event loop plus one connection; the calling thread
checks a lane out and drives its loop itself for the length of the call. A
dedicated loop thread with submitted coroutines was measured here at about 130
us of thread hand-over per call, more than a Postgres round trip; a lane adds
15-35 us over a bare asyncpg call. The async API is separate:
`await recorder.async_insert_events(...)`, `async_select_events`,
`async_select_notifications`, `async_max_notification_id`, `async_max_tracking_id`,
`async_insert_tracking` and `async_create_table` run on an asyncpg pool that
belongs to the calling event loop (made on first use), so an async web server
never blocks its loop and never hops to another thread.
Close with `await recorder.datastore.aclose()` from the loop, or `close()`.
A sync method called from inside a running loop still works (a helper thread
drives the lane) but blocks that loop: use the async_ methods there.

Commit order. A reader tailing notification ids must never pass an id whose
transaction commits later. As eventsourcing.postgres does, each insert takes
`LOCK TABLE <events> IN EXCLUSIVE MODE` (readers take ACCESS SHARE and are not
blocked), so ids are handed out one transaction at a time and in commit order.
What changes is where the lock is taken: as the first statement of one server
function that also checks the read set, records tracking, notifies and inserts
(with unnest), called as a single autocommit statement. The lock is held for
the function and the commit, never across a client round trip; eventsourcing
holds it across its pipeline sync and the separate COMMIT round trip. Kept the
table lock rather than an advisory lock so that writers of eventsourcing.postgres
on the same table are excluded too. Rejected: a reader-side horizon (xid8
column, pg_snapshot_xmin), which changes the table layout and lets readers lag;
merging concurrent saves into one transaction, which ties unrelated saves'
failures together.

Read-set guard (the project's P2). `insert_events(events, read_versions={id:
version})` (passed through by `Application.save(..., read_versions=...)`) names
aggregates the caller only read, with the version it saw (0: saw none). In the
same function, after the lock, one query looks for any event of those
aggregates above those versions; if there is one it raises
`ReadSetConflictError` (an IntegrityError, and the embedded stores' class)
naming the aggregate and both versions, and the transaction writes nothing. It
is race-free: the lock serialises every inserting transaction, and a VOLATILE
plpgsql function takes a fresh snapshot per statement at READ COMMITTED (which
our connections pin), so the check sees every insert that committed before the
lock was granted. Two units of work that read
A and B and write one each (write skew) cannot both commit. Written aggregates
are guarded by the unique (originator_id, originator_version) key.

Errors are eventsourcing's persistence errors. `RetryableError` (an
OperationalError) means nothing was committed and the same call may be made
again: `LockTimeoutError`, `StatementTimeoutError`, `PoolTimeoutError`,
`StoreUnavailableError` (cannot reach host:port), serialization failures and
deadlocks. `ConnectionLostError` is not retryable for writes (the commit may or
may not have happened; a repeat is harmless but may report an IntegrityError);
reads that lose their connection are retried once on a new one. asyncpg's own
client errors never escape raw: on a connection that broke they are a
`ConnectionLostError`, otherwise an `InterfaceError`.

Broken connections are never lent again (lanes and async pools alike). A
connection goes back to its pool only after success or a server error, and only
if it is sound: not closed, not inside a transaction, and the server has said
nothing since its last ReadyForQuery. That last test reads both the socket (a
poll, no round trip) and the last bytes asyncpg already read (driver._Watch): a
backend killed as it answers sends its termination notice in the same read as
the reply, which asyncpg takes for a protocol error; lent again, the connection
would fail its next call with "cannot switch to state 12; another operation (2)
is in progress". After any other exception (a client or protocol error, a
cancelled call) the connection is closed at once.
"""

from __future__ import annotations

from infrastructure.postgres.aggregate_recorder import AsyncpgAggregateRecorder
from infrastructure.postgres.application_recorder import AsyncpgApplicationRecorder
from infrastructure.postgres.datastore import AsyncpgDatastore
from infrastructure.postgres.errors import (
    ConnectionLostError,
    LockTimeoutError,
    PoolTimeoutError,
    ReadSetConflictError,
    RetryableError,
    StatementTimeoutError,
    StoreConnectionError,
    StoreUnavailableError,
)
from infrastructure.postgres.factory import AsyncpgFactory
from infrastructure.postgres.process_recorder import AsyncpgProcessRecorder
from infrastructure.postgres.rate import AsyncpgRateCounter, make_rate_counter
from infrastructure.postgres.read_models import AsyncpgReadModelStore, make_read_model_store
from infrastructure.postgres.settings import PostgresSettings
from infrastructure.postgres.standby import StandbyReadModelStore, make_standby_read_model_store
from infrastructure.postgres.subscription import AsyncpgSubscription
from infrastructure.postgres.tracking_recorder import AsyncpgTrackingRecorder

Factory = AsyncpgFactory

__all__ = [
    "AsyncpgAggregateRecorder",
    "AsyncpgApplicationRecorder",
    "AsyncpgDatastore",
    "AsyncpgFactory",
    "AsyncpgProcessRecorder",
    "AsyncpgRateCounter",
    "AsyncpgReadModelStore",
    "AsyncpgSubscription",
    "AsyncpgTrackingRecorder",
    "ConnectionLostError",
    "Factory",
    "LockTimeoutError",
    "PoolTimeoutError",
    "PostgresSettings",
    "ReadSetConflictError",
    "RetryableError",
    "StandbyReadModelStore",
    "StatementTimeoutError",
    "StoreConnectionError",
    "StoreUnavailableError",
    "make_rate_counter",
    "make_read_model_store",
    "make_standby_read_model_store",
]
