#!/bin/bash
# The standby's command (docker-compose.yml). The first time, a copy of the primary made
# by pg_basebackup -R, which also writes how to stream from it (primary_conninfo, with the
# application_name `standby` that the primary's synchronous_standby_names waits for, and
# standby.signal). Then the server, as a hot standby that read-only queries may use.
# It has no synchronous standby of its own: promoted (`pg_ctl promote`, or the tooling
# that watches the primary), it must not wait for one.
set -euo pipefail

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    until pg_basebackup --pgdata="$PGDATA" --write-recovery-conf --wal-method=stream \
        --checkpoint=fast \
        --dbname="host=postgres port=5432 user=replicator application_name=standby"; do
        echo "standby: the primary cannot be copied yet; trying again" >&2
        rm -rf "${PGDATA:?}"/*
        sleep 2
    done
    chmod 0700 "$PGDATA"
fi
exec postgres -c synchronous_standby_names='' -c hot_standby=on -c hot_standby_feedback=on
