"""The read models in Postgres, beside the events: the windows of a write and their tracking
in one transaction, which is one call of a function of the view's own (`<prefix>apply_v4`),
one command per table inside it (arrays unnested server side).

The function claims each window first: it moves the tracking row from the window's start
to its end, which locks the row until commit, so a concurrent applier of an overlapping
window waits, then finds the position moved and writes nothing (`StaleWindowError`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from application.read_models.rows import (
    DeadLetter,
    DocumentChange,
    DocumentRow,
    HistoryEntry,
    RunRow,
)
from application.read_models.store import (
    RUNS,
    ReadModelStore,
    StaleWindowError,
    Window,
    WindowWrite,
)
from infrastructure.postgres import driver
from infrastructure.postgres.datastore import AsyncpgDatastore
from infrastructure.postgres.recorder import DdlStep
from infrastructure.postgres.sql import check_identifier, quote_ident
from infrastructure.postgres.tracking_recorder import AsyncpgTrackingRecorder

RUN_COLUMNS = (
    ("principal", "text"), ("kind", "text"), ("language", "text"), ("status", "text"),
    ("calls", "int"), ("previewed", "int"), ("committed", "int"), ("confirmed_by", "text"),
    ("error", "text"), ("created_at", "text"), ("decided_at", "text"), ("position", "bigint"),
)  # fmt: skip
# The fields of each kind of row, in the order of its table's columns and arrays.
ENTRY_FIELDS = ("projection", "stream", "version", "position", "body", "run_id")
LINK_FIELDS = ("projection", "stream", "version", "run_id")
RUN_FIELDS = ("run_id", *(name for name, _ in RUN_COLUMNS))
DOCUMENT_FIELDS = ("projection", "key", "owner", "body")
# The apply function's parameters: the windows, then the rows of each table, an array a column.
APPLY_FUNCTION = "apply_v4"
APPLY_ARRAYS = (
    ("w_name", "text"), ("w_after", "bigint"), ("w_upto", "bigint"),
    *((f"h_{name}", kind) for name, kind in zip(ENTRY_FIELDS,
        ("text", "text", "int", "bigint", "text", "text"), strict=True)),
    *((f"l_{name}", kind) for name, kind in zip(LINK_FIELDS,
        ("text", "text", "int", "text"), strict=True)),
    ("r_run_id", "text"), *((f"r_{name}", kind) for name, kind in RUN_COLUMNS),
    *((f"d_{name}", "text") for name in DOCUMENT_FIELDS),
)  # fmt: skip
# The tables of a view (each named with its prefix).
TABLES = frozenset({RUNS, "documents", "histories", "dead_letters", "tracking"})
# The SQLSTATE the apply function raises for a window that does not start at its position.
STALE_WINDOW = "SLW01"


@dataclass(frozen=True)
class ApplyArguments:
    windows: list[Window]
    arrays: list[list[Any]]


class AsyncpgReadModelStore(AsyncpgTrackingRecorder, ReadModelStore):
    def __init__(self, datastore: AsyncpgDatastore, prefix: str = "rm_") -> None:
        check_identifier(prefix + "x")
        self.prefix = prefix
        super().__init__(datastore, tracking_table_name=f"{prefix}tracking")
        schema = quote_ident(datastore.schema)
        self.t_runs = f"{schema}.{quote_ident(prefix + 'runs')}"
        self.t_dead_letters = f"{schema}.{quote_ident(prefix + 'dead_letters')}"
        self.t_documents = f"{schema}.{quote_ident(prefix + 'documents')}"
        self.t_histories = f"{schema}.{quote_ident(prefix + 'histories')}"
        self._quoted_schema = schema
        # Every window write is one call of this function: the claims and the rows, one
        # round trip and one implicit transaction (versioned: a changed body is a new name).
        self.apply_function = f"{schema}.{quote_ident(prefix + APPLY_FUNCTION)}"
        kinds = [kind for _, kind in APPLY_ARRAYS]
        arrays = ", ".join(f"${i}::{kind}[]" for i, kind in enumerate(kinds, 1))
        self._apply_call = f"SELECT {self.apply_function}({arrays})"

    def ddl(self) -> list[DdlStep]:
        runs = ", ".join(f"{name} {kind}" for name, kind in RUN_COLUMNS)
        return [
            *super().ddl(),
            DdlStep(
                "relation",
                self.prefix + "runs",
                f"CREATE TABLE IF NOT EXISTS {self.t_runs} (run_id text PRIMARY KEY, {runs})",
            ),
            DdlStep(  # the inbox: pending runs, newest first
                "relation",
                self.prefix + "runs_by_status",
                f"CREATE INDEX IF NOT EXISTS {quote_ident(self.prefix + 'runs_by_status')} "
                f"ON {self.t_runs} (status, position)",
            ),
            DdlStep(
                "relation",
                self.prefix + "dead_letters",
                f"CREATE TABLE IF NOT EXISTS {self.t_dead_letters} (projection text, "
                "position bigint, error text, recorded_at text, "
                "PRIMARY KEY (projection, position))",
            ),
            DdlStep(  # the records of the declared read models, keys in code-point order
                "relation",
                self.prefix + "documents",
                f"CREATE TABLE IF NOT EXISTS {self.t_documents} (projection text, "
                'key text COLLATE "C", owner text, body text NOT NULL, '
                "PRIMARY KEY (projection, key))",
            ),
            DdlStep(  # the entries of the histories, a stream's by version
                "relation",
                self.prefix + "histories",
                f"CREATE TABLE IF NOT EXISTS {self.t_histories} (projection text, "
                'stream text COLLATE "C", version int, position bigint, body text NOT NULL, '
                "run_id text, PRIMARY KEY (projection, stream, version))",
            ),
            DdlStep("function", self.prefix + APPLY_FUNCTION, self._apply_function()),
        ]

    # Writes.

    def write(self, writes: Sequence[WindowWrite]) -> None:
        self._call_apply(self._arguments(writes))

    def record_dead_letter(self, letter: DeadLetter, window: Window) -> None:
        query = (
            f"INSERT INTO {self.t_dead_letters} VALUES ($1, $2, $3, $4) "
            "ON CONFLICT (projection, position) DO UPDATE SET error = EXCLUDED.error, "
            "recorded_at = EXCLUDED.recorded_at"
        )
        row = (letter.projection, letter.position, letter.error, letter.recorded_at)
        self._call_apply(self._arguments([WindowWrite(window)]), then=(query, row))

    def positions(self, names: Sequence[str]) -> dict[str, int]:
        rows = self._fetch(
            f"SELECT application_name, notification_id FROM {self.tracking_sql.qualified} "
            "WHERE application_name = ANY($1)",
            list(names),
        )
        recorded = {r["application_name"]: int(r["notification_id"]) for r in rows}
        return {name: recorded.get(name, 0) for name in names}

    def _arguments(self, writes: Sequence[WindowWrite]) -> ApplyArguments:
        """The apply function's arrays: the windows in name order (so that two appliers of
        the same windows never wait on each other crosswise), then each kind of row."""
        ordered = sorted(writes, key=lambda w: w.window.name)
        windows = [w.window for w in ordered]
        arrays: list[list[Any]] = [
            [w.name for w in windows],
            [w.after for w in windows],
            [w.upto for w in windows],
            *_columns([r for w in ordered for r in w.entries], ENTRY_FIELDS),
            *_columns([r for w in ordered for r in w.links], LINK_FIELDS),
            *_columns([r for w in ordered for r in w.runs], RUN_FIELDS),
            *_columns(_last_changes([r for w in writes for r in w.documents]), DOCUMENT_FIELDS),
        ]
        return ApplyArguments(windows, arrays)

    def _call_apply(
        self, arguments: ApplyArguments, *, then: tuple[str, tuple[Any, ...]] | None = None
    ) -> None:
        """One call of the apply function (with `then`, and that query after it, in one
        transaction); StaleWindowError, nothing written, if a window does not start at its
        recorded position."""
        recorded = (
            f"SELECT notification_id FROM {self.tracking_sql.qualified} WHERE application_name = $1"
        )
        by_name = {window.name: window for window in arguments.windows}

        async def apply(conn: driver.Connection) -> None:
            try:
                if then is None:
                    await conn.execute(self._apply_call, *arguments.arrays)
                    return
                async with conn.transaction():
                    await conn.execute(self._apply_call, *arguments.arrays)
                    await conn.execute(then[0], *then[1])
            except driver.PostgresError as error:
                if driver.sqlstate(error) != STALE_WINDOW:
                    raise
                stale = by_name[getattr(error, "detail", "")]
                raise StaleWindowError(stale, await conn.fetchval(recorded, stale.name)) from None

        self.datastore.run(apply, idempotent=False)

    def _apply_function(self) -> str:
        """Claims each window (moves its tracking from `after` to `upto`, or raises
        STALE_WINDOW naming it), then writes every row, one command per table."""
        parameters = ",\n    ".join(f"{name} {kind}[]" for name, kind in APPLY_ARRAYS)
        tracking = self.tracking_sql.qualified
        run_updates = ", ".join(f"{n} = COALESCE(EXCLUDED.{n}, t.{n})" for n in RUN_FIELDS[1:])
        run_arrays = ", ".join(f"r_{n}" for n in RUN_FIELDS)
        return f"""
CREATE OR REPLACE FUNCTION {self.apply_function}(
    {parameters})
RETURNS void
LANGUAGE plpgsql
AS $sluice$
DECLARE
    claimed int;
BEGIN
    FOR i IN 1 .. coalesce(cardinality(w_name), 0) LOOP
        IF w_after[i] = 0 THEN
            INSERT INTO {tracking} (application_name, notification_id)
            VALUES (w_name[i], w_upto[i]) ON CONFLICT (application_name) DO NOTHING;
        ELSE
            UPDATE {tracking} SET notification_id = w_upto[i]
             WHERE application_name = w_name[i] AND notification_id = w_after[i];
        END IF;
        GET DIAGNOSTICS claimed = ROW_COUNT;
        IF claimed <> 1 THEN
            RAISE EXCEPTION 'stale window of %', w_name[i]
                USING ERRCODE = '{STALE_WINDOW}', DETAIL = w_name[i];
        END IF;
    END LOOP;
    IF cardinality(h_stream) > 0 THEN
        INSERT INTO {self.t_histories}
        SELECT * FROM unnest(h_projection, h_stream, h_version, h_position, h_body, h_run_id);
    END IF;
    IF cardinality(l_stream) > 0 THEN
        UPDATE {self.t_histories} AS h SET run_id = l.run_id
          FROM unnest(l_projection, l_stream, l_version, l_run_id)
               AS l(projection, stream, version, run_id)
         WHERE h.projection = l.projection AND h.stream = l.stream AND h.version = l.version;
    END IF;
    IF cardinality(r_run_id) > 0 THEN
        INSERT INTO {self.t_runs} AS t SELECT * FROM unnest({run_arrays})
        ON CONFLICT (run_id) DO UPDATE SET {run_updates};
    END IF;
    IF cardinality(d_key) > 0 THEN
        DELETE FROM {self.t_documents} AS t
         USING unnest(d_projection, d_key, d_body) AS d(projection, key, body)
         WHERE d.body IS NULL AND t.projection = d.projection AND t.key = d.key;
        INSERT INTO {self.t_documents} AS t
        SELECT * FROM unnest(d_projection, d_key, d_owner, d_body)
                   AS d(projection, key, owner, body)
         WHERE d.body IS NOT NULL
        ON CONFLICT (projection, key) DO UPDATE SET owner = EXCLUDED.owner, body = EXCLUDED.body;
    END IF;
END;
$sluice$
"""

    # Reads.

    def history(
        self, projection: str, stream: str, limit: int, before_version: int | None = None
    ) -> list[HistoryEntry]:
        # $4 NULL: no bound (every version is below it).
        rows = self._fetch(
            f"SELECT * FROM {self.t_histories} WHERE projection = $1 AND stream = $2 "
            "AND ($4::int IS NULL OR version < $4) ORDER BY version DESC LIMIT $3",
            projection,
            stream,
            limit,
            before_version,
        )
        return [_history_entry(r) for r in rows]

    def history_entries(self, projection: str) -> list[HistoryEntry]:
        rows = self._fetch(
            f"SELECT * FROM {self.t_histories} WHERE projection = $1 ORDER BY position",
            projection,
        )
        return [_history_entry(r) for r in rows]

    def last_entries(self, projection: str, streams: Collection[str]) -> dict[str, HistoryEntry]:
        if not streams:
            return {}
        rows = self._fetch(
            f"SELECT DISTINCT ON (stream) * FROM {self.t_histories} "
            "WHERE projection = $1 AND stream = ANY($2) ORDER BY stream, version DESC",
            projection,
            list(streams),
        )
        return {r["stream"]: _history_entry(r) for r in rows}

    def runs(self, run_ids: Collection[str] | None = None) -> list[RunRow]:
        where, args = ("", []) if run_ids is None else (" WHERE run_id = ANY($1)", [list(run_ids)])
        rows = self._fetch(f"SELECT * FROM {self.t_runs}{where} ORDER BY position", *args)
        return [RunRow(r["run_id"], *(r[name] for name, _ in RUN_COLUMNS)) for r in rows]

    def runs_page(
        self, status: str | None, principal: str | None, before: int | None, limit: int
    ) -> list[RunRow]:
        # A NULL argument leaves its condition out.
        rows = self._fetch(
            f"SELECT * FROM {self.t_runs} WHERE ($1::text IS NULL OR status = $1) "
            "AND ($2::text IS NULL OR principal = $2) AND ($3::bigint IS NULL OR position < $3) "
            "ORDER BY position DESC LIMIT $4",
            status,
            principal,
            before,
            limit,
        )
        return [RunRow(r["run_id"], *(r[name] for name, _ in RUN_COLUMNS)) for r in rows]

    def run_ids_starting(self, start: str, principal: str | None, limit: int) -> list[str]:
        # `start` holds hex digits and dashes only: no LIKE wildcard. Only a person typing a
        # short id asks this; the scan is bounded by the runs table.
        rows = self._fetch(
            f"SELECT run_id FROM {self.t_runs} WHERE run_id LIKE $1 || '%' "
            "AND ($2::text IS NULL OR principal = $2) LIMIT $3",
            start,
            principal,
            limit,
        )
        return [r["run_id"] for r in rows]

    def documents(
        self,
        projection: str,
        keys: Collection[str] | None = None,
        owners: Collection[str] | None = None,
    ) -> list[DocumentRow]:
        return _document_rows(self.datastore.run(self._documents_query(projection, keys, owners)))

    async def async_documents(
        self,
        projection: str,
        keys: Collection[str] | None = None,
        owners: Collection[str] | None = None,
    ) -> list[DocumentRow]:
        """As `documents`, on the caller's event loop (asyncpg's pool of that loop)."""
        query = self._documents_query(projection, keys, owners)
        return _document_rows(await self.datastore.arun(query))

    def _documents_query(
        self, projection: str, keys: Collection[str] | None, owners: Collection[str] | None
    ) -> driver.Operation[list[driver.Record]]:
        # Only the conditions asked for, so that each shape of read has a plan of its own
        # (a read by key uses the primary key); keys by code point, whatever the database's
        # collation (the column's own is "C" too, so its index gives that order).
        query = f"SELECT * FROM {self.t_documents} WHERE projection = $1"
        args: list[Any] = [projection]
        if keys is not None:
            args.append(list(keys))
            query += f" AND key = ANY(${len(args)})"
        if owners is not None:
            args.append(list(owners))
            query += f" AND (owner IS NULL OR owner = ANY(${len(args)}))"
        query += ' ORDER BY key COLLATE "C"'

        async def fetch(conn: driver.Connection) -> list[driver.Record]:
            return await conn.fetch(query, *args)

        return fetch

    def dead_letters(self, projection: str | None = None) -> list[DeadLetter]:
        where, args = ("", []) if projection is None else (" WHERE projection = $1", [projection])
        rows = self._fetch(
            f"SELECT * FROM {self.t_dead_letters}{where} ORDER BY position, projection", *args
        )
        return [
            DeadLetter(r["projection"], r["position"], r["error"], r["recorded_at"]) for r in rows
        ]

    def reset(self, projection: str, tracking_name: str) -> None:
        tables = self._rows_of(self.prefix, projection)
        tracking_table = self.tracking_sql.qualified

        async def reset(conn: driver.Connection) -> None:
            async with conn.transaction():
                await conn.execute(
                    f"DELETE FROM {tracking_table} WHERE application_name = $1", tracking_name
                )
                for table, where, params in tables:
                    await conn.execute(f"DELETE FROM {table}{where}", *params)
                await conn.execute(
                    f"DELETE FROM {self.t_dead_letters} WHERE projection = $1", projection
                )

        self.datastore.run(reset, idempotent=False)

    def take_over(self, projection: str, source_prefix: str, source: str, tracking: str) -> int:
        check_identifier(source_prefix + "x")
        tables = list(
            zip(
                self._rows_of(self.prefix, projection),
                self._rows_of(source_prefix, projection),
                strict=True,
            )
        )
        their_letters = self._table(source_prefix, "dead_letters")
        their_tracking = self._table(source_prefix, "tracking")
        qualified = self.tracking_sql.qualified

        async def take_over(conn: driver.Connection) -> int:
            async with conn.transaction():
                # The tracking row first: live appliers of this projection wait, then find
                # their windows stale.
                await conn.execute(f"DELETE FROM {qualified} WHERE application_name = $1", tracking)
                position = await conn.fetchval(
                    f"SELECT notification_id FROM {their_tracking} WHERE application_name = $1",
                    source,
                )
                for (mine, where, params), (theirs, _, _) in tables:
                    await conn.execute(f"DELETE FROM {mine}{where}", *params)
                    await conn.execute(f"INSERT INTO {mine} SELECT * FROM {theirs}{where}", *params)
                await conn.execute(
                    f"DELETE FROM {self.t_dead_letters} WHERE projection = $1", projection
                )
                await conn.execute(
                    f"INSERT INTO {self.t_dead_letters} SELECT * FROM {their_letters} "
                    "WHERE projection = $1",
                    projection,
                )
                if position:
                    await conn.execute(
                        f"INSERT INTO {qualified} (application_name, notification_id) "
                        "VALUES ($1, $2)",
                        tracking,
                        position,
                    )
                return int(position or 0)

        return self.datastore.run(take_over, idempotent=False)

    def _rows_of(self, prefix: str, projection: str) -> list[tuple[str, str, tuple[str, ...]]]:
        """A projection's rows: the runs' table whole, or a domain projection's records and
        history entries (each table, the condition and its parameters)."""
        if projection == RUNS:
            return [(self._table(prefix, RUNS), "", ())]
        mine = " WHERE projection = $1", (projection,)
        return [
            (self._table(prefix, "documents"), *mine),
            (self._table(prefix, "histories"), *mine),
        ]

    def _table(self, prefix: str, name: str) -> str:
        if name not in TABLES:
            raise ValueError(f"no read-model table {name}")
        return f"{self._quoted_schema}.{quote_ident(prefix + name)}"

    def _fetch(self, query: str, *args: object) -> list[driver.Record]:
        async def fetch(conn: driver.Connection) -> list[driver.Record]:
            return await conn.fetch(query, *args)

        return self.datastore.run(fetch)


def _columns(rows: Sequence[Any], names: Sequence[str]) -> list[list[Any]]:
    return [[getattr(row, name) for row in rows] for name in names]


def _last_changes(changes: Sequence[DocumentChange]) -> list[DocumentChange]:
    """The last change of each record (a later one wins): one command cannot touch a row
    twice, and a record's end state is its last change's."""
    return list({(ch.projection, ch.key): ch for ch in changes}.values())


def _document_rows(rows: list[driver.Record]) -> list[DocumentRow]:
    return [DocumentRow(r["projection"], r["key"], r["owner"], r["body"]) for r in rows]


def _history_entry(r: driver.Record) -> HistoryEntry:
    return HistoryEntry(
        r["projection"], r["stream"], r["version"], r["position"], r["body"], r["run_id"]
    )


def make_read_model_store(factory: Any, prefix: str) -> AsyncpgReadModelStore:
    """The read models, in tables beside the events (one set per table prefix)."""
    view = AsyncpgReadModelStore(factory.datastore, prefix)
    view.create_table()
    return view
