"""The SQL text of the store: table layouts, the insert function, the queries.

The tables have exactly the layout eventsourcing.postgres gives them, so either
module can open a database the other one made.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from eventsourcing.persistence import ProgrammingError

MAX_IDENTIFIER_LEN = 63
# Bump when the body of the insert function changes: a new name is created
# beside the old one instead of replacing a function that live writers call.
INSERT_FUNCTION_VERSION = 1
# Serialises our DDL across processes (an arbitrary constant key).
DDL_LOCK_KEY = 0x5_1C_E0_DD_1

_TABLE_OPTIONS = (
    "WITH (autovacuum_enabled = true, autovacuum_vacuum_threshold = 100000000, "
    "autovacuum_vacuum_scale_factor = 0.5, autovacuum_analyze_threshold = 1000, "
    "autovacuum_analyze_scale_factor = 0.01)"
)


def check_identifier(name: str) -> None:
    if len(name.encode()) > MAX_IDENTIFIER_LEN:
        msg = f"Identifier too long: {name}"
        raise ProgrammingError(msg)


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def quote_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def derived_name(base: str, suffix: str) -> str:
    """`base_suffix`, shortened with a digest of `base` when too long."""
    name = f"{base}_{suffix}"
    if len(name.encode()) <= MAX_IDENTIFIER_LEN:
        return name
    digest = hashlib.sha1(base.encode(), usedforsecurity=False).hexdigest()[:8]
    keep = MAX_IDENTIFIER_LEN - len(suffix) - len(digest) - 2
    return f"{base.encode()[:keep].decode(errors='ignore')}_{digest}_{suffix}"


@dataclass(frozen=True)
class EventsSql:
    """Statements for one events table (with notification ids or without)."""

    schema: str
    table: str
    id_type: str
    notifications: bool
    tracking_table: str | None = None
    _select_events: dict[tuple[bool, bool, bool, bool], str] = field(
        default_factory=dict, compare=False
    )
    _select_notifications: dict[tuple[bool, bool, bool, bool], str] = field(
        default_factory=dict, compare=False
    )

    @property
    def qualified(self) -> str:
        return f"{quote_ident(self.schema)}.{quote_ident(self.table)}"

    @property
    def channel(self) -> str:
        # The channel eventsourcing.postgres notifies, so that subscribers of
        # either module wake for inserts made through the other.
        return self.table.replace(".", "_")

    @property
    def index_name(self) -> str:
        return f"{self.table}_notification_id_idx"

    @property
    def function_name(self) -> str:
        base = self.table if self.tracking_table is None else f"{self.table}_{self.tracking_table}"
        return derived_name(base, f"insert_v{INSERT_FUNCTION_VERSION}")

    @property
    def qualified_function(self) -> str:
        return f"{quote_ident(self.schema)}.{quote_ident(self.function_name)}"

    def create_table(self) -> str:
        notification_column = "notification_id bigserial, " if self.notifications else ""
        return (
            f"CREATE TABLE IF NOT EXISTS {self.qualified} ("
            f"originator_id {self.id_type} NOT NULL, "
            "originator_version bigint NOT NULL, "
            "topic text, "
            "state bytea, "
            f"{notification_column}"
            f"PRIMARY KEY (originator_id, originator_version)) {_TABLE_OPTIONS}"
        )

    def create_index(self) -> str:
        return (
            f"CREATE UNIQUE INDEX IF NOT EXISTS {quote_ident(self.index_name)} "
            f"ON {self.qualified} (notification_id ASC)"
        )

    def create_insert_function(self) -> str:
        """One function per table, so that an insert is one round trip.

        The lock, the read-set check, the tracking record, the notify and the
        insert all run inside the statement's own transaction: the lock is
        held for the function and the commit only, never across a round trip
        to the client.
        """
        t = self.qualified
        tracking_params = ", tracking_name text, tracking_id bigint" if self.tracking_table else ""
        returns = "SETOF bigint" if self.notifications else "void"
        returning = " RETURNING notification_id" if self.notifications else ""
        insert = "RETURN QUERY " if self.notifications else ""
        lock_when = (
            "cardinality(ids) > 0 OR cardinality(read_ids) > 0"
            if self.notifications
            else "cardinality(read_ids) > 0"
        )
        notify = (
            f"PERFORM pg_notify({quote_literal(self.channel)}, '');" if self.notifications else ""
        )
        return f"""
CREATE OR REPLACE FUNCTION {self.qualified_function}(
    ids {self.id_type}[], versions bigint[], topics text[], states bytea[],
    read_ids {self.id_type}[], read_versions bigint[]{tracking_params})
RETURNS {returns}
LANGUAGE plpgsql
AS $sluice$
DECLARE
    conflict record;
BEGIN
    IF {lock_when} THEN
        -- Insert order equals commit order, and the read-set check below
        -- sees every insert committed before this one.
        LOCK TABLE {t} IN EXCLUSIVE MODE;
    END IF;
    IF cardinality(read_ids) > 0 THEN
        SELECT r.id, r.version, max(e.originator_version) AS current
          INTO conflict
          FROM unnest(read_ids, read_versions) AS r(id, version)
          JOIN {t} AS e ON e.originator_id = r.id AND e.originator_version > r.version
         GROUP BY r.id, r.version
         LIMIT 1;
        IF FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = 'SL409',
                MESSAGE = format(
                    'read set changed: aggregate %s was read at version %s '
                    'but is now at version %s',
                    conflict.id, conflict.version, conflict.current),
                DETAIL = format('%s %s %s', conflict.id, conflict.version, conflict.current);
        END IF;
    END IF;
{self._tracking_block()}
    IF cardinality(ids) > 0 THEN
        {notify}
        {insert}INSERT INTO {t} (originator_id, originator_version, topic, state)
            SELECT * FROM unnest(ids, versions, topics, states){returning};
    END IF;
END
$sluice$"""

    def _tracking_block(self) -> str:
        if self.tracking_table is None:
            return ""
        tt = f"{quote_ident(self.schema)}.{quote_ident(self.tracking_table)}"
        return f"""
    IF tracking_name IS NOT NULL THEN
        INSERT INTO {tt} AS t (application_name, notification_id)
        VALUES (tracking_name, tracking_id)
        ON CONFLICT (application_name) DO UPDATE
            SET notification_id = EXCLUDED.notification_id
            WHERE t.notification_id < EXCLUDED.notification_id;
        IF NOT FOUND THEN
            RAISE EXCEPTION USING
                ERRCODE = 'unique_violation',
                MESSAGE = format('Failed to record tracking for %s %s', tracking_name, tracking_id);
        END IF;
    END IF;"""

    def insert_call(self) -> str:
        t = self.id_type
        args = f"$1::{t}[], $2::bigint[], $3::text[], $4::bytea[], $5::{t}[], $6::bigint[]"
        if self.tracking_table is not None:
            args += ", $7::text, $8::bigint"
        if self.notifications:
            return f"SELECT * FROM {self.qualified_function}({args})"
        return f"SELECT {self.qualified_function}({args})"

    def select_events(self, *, gt: bool, lte: bool, desc: bool, limit: bool) -> str:
        key = (gt, lte, desc, limit)
        statement = self._select_events.get(key)
        if statement is None:
            # The caller knows the id: not reading it back saves a decode per row.
            parts = [
                "SELECT originator_version, topic, state "
                f"FROM {self.qualified} WHERE originator_id = $1"
            ]
            n = 1
            if gt:
                n += 1
                parts.append(f" AND originator_version > ${n}")
            if lte:
                n += 1
                parts.append(f" AND originator_version <= ${n}")
            parts.append(
                " ORDER BY originator_version DESC" if desc else " ORDER BY originator_version"
            )
            if limit:
                n += 1
                parts.append(f" LIMIT ${n}")
            statement = "".join(parts)
            self._select_events[key] = statement
        return statement

    def select_notifications(
        self, *, start: bool, inclusive: bool, stop: bool, topics: bool
    ) -> str:
        key = (start, inclusive, stop, topics)
        statement = self._select_notifications.get(key)
        if statement is None:
            conditions: list[str] = []
            n = 0
            if start:
                n += 1
                conditions.append(f"notification_id {'>=' if inclusive else '>'} ${n}")
            if stop:
                n += 1
                conditions.append(f"notification_id <= ${n}")
            if topics:
                n += 1
                conditions.append(f"topic = ANY(${n}::text[])")
            where = f" WHERE {' AND '.join(conditions)}" if conditions else ""
            statement = (
                "SELECT notification_id, originator_id, originator_version, topic, state "
                f"FROM {self.qualified}{where} ORDER BY notification_id LIMIT ${n + 1}"
            )
            self._select_notifications[key] = statement
        return statement

    def max_notification_id(self) -> str:
        return f"SELECT MAX(notification_id) FROM {self.qualified}"

    # The events whose topics start with a prefix (WATCHED_TOPIC_PREFIX): a partial index of
    # their notification ids, so the last one's is read from the index's end. The predicate
    # is written out as a literal, the same text in the index and the query, which is what
    # lets the planner use a partial index.

    def watched_index_name(self, prefix: str) -> str:
        digest = hashlib.sha1(prefix.encode(), usedforsecurity=False).hexdigest()[:8]
        return derived_name(self.table, f"watched_{digest}_idx")

    def create_watched_index(self, prefix: str) -> str:
        return (
            f"CREATE INDEX IF NOT EXISTS {quote_ident(self.watched_index_name(prefix))} "
            f"ON {self.qualified} (notification_id) WHERE {_topic_like(prefix)}"
        )

    def last_watched_position(self, prefix: str) -> str:
        return f"SELECT MAX(notification_id) FROM {self.qualified} WHERE {_topic_like(prefix)}"


def _topic_like(prefix: str) -> str:
    pattern = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    return f"topic LIKE {quote_literal(pattern)}"


@dataclass(frozen=True)
class TrackingSql:
    schema: str
    table: str

    @property
    def qualified(self) -> str:
        return f"{quote_ident(self.schema)}.{quote_ident(self.table)}"

    def create_table(self) -> str:
        return (
            f"CREATE TABLE IF NOT EXISTS {self.qualified} ("
            "application_name text, notification_id bigint, "
            f"PRIMARY KEY (application_name)) {_TABLE_OPTIONS}"
        )

    def insert_tracking(self) -> str:
        return (
            f"INSERT INTO {self.qualified} AS t (application_name, notification_id) "
            "VALUES ($1, $2) ON CONFLICT (application_name) DO UPDATE "
            "SET notification_id = EXCLUDED.notification_id "
            "WHERE t.notification_id < EXCLUDED.notification_id "
            "RETURNING notification_id"
        )

    def mark_single_row(self) -> str:
        # eventsourcing.postgres reads this row to know the table needs no
        # migration from its legacy multi-row layout.
        return (
            f"INSERT INTO {self.qualified} (application_name, notification_id) "
            "VALUES ('__migration__', 1) ON CONFLICT (application_name) DO NOTHING"
        )

    def max_tracking_id(self) -> str:
        return f"SELECT MAX(notification_id) FROM {self.qualified} WHERE application_name = $1"
