#!/bin/bash
# Run once by the postgres image when it makes the primary's data folder
# (/docker-entrypoint-initdb.d): a role the standby copies and streams with, the
# pg_hba.conf line that lets it, and synchronous replication to the standby that
# docker-compose.yml names `standby` (its application_name).
set -euo pipefail

psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<SQL
CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD '${REPLICATION_PASSWORD}';
-- Written to postgresql.auto.conf, read when the server starts for good (the image's
-- set-up server would otherwise wait for a standby that cannot exist yet). A commit is
-- acknowledged once the standby has it: a failover then loses nothing acknowledged.
ALTER SYSTEM SET synchronous_standby_names = 'standby';
-- WAL kept for a standby that was away a while (it catches up without a new copy).
ALTER SYSTEM SET wal_keep_size = '1GB';
SQL

echo "host replication replicator all scram-sha-256" >> "$PGDATA/pg_hba.conf"
