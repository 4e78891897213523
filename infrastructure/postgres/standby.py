"""The read models as a hot standby replays them: SLUICE_READ_DATABASE_URL's server.

Their tables are made on the primary and reach the standby by replication, so this store
only reads (a hot standby refuses writes), on connections of its own.
"""

from __future__ import annotations

from eventsourcing.utils import Environment

from infrastructure.postgres import driver
from infrastructure.postgres.datastore import AsyncpgDatastore
from infrastructure.postgres.read_models import AsyncpgReadModelStore
from infrastructure.postgres.settings import PostgresSettings

# How far the server's replay is behind its primary: 0 when it has replayed all it has
# received (however long ago that was), or when it is a primary itself (promoted).
REPLAY_LAG = (
    "SELECT CASE WHEN NOT pg_is_in_recovery() THEN 0 "
    "WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0 "
    "ELSE COALESCE(extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()), 0) "
    "END::float8"
)


class StandbyReadModelStore(AsyncpgReadModelStore):
    def replay_lag_seconds(self) -> float:
        async def lag(conn: driver.Connection) -> float:
            return float(await conn.fetchval(REPLAY_LAG))

        return self.datastore.run(lag)

    def close(self) -> None:
        self.datastore.close()


def make_standby_read_model_store(env: Environment, prefix: str) -> StandbyReadModelStore:
    """The standby's read models, for the settings of `env` (a POSTGRES_DSN, say)."""
    return StandbyReadModelStore(AsyncpgDatastore(PostgresSettings.from_env(env)), prefix)
