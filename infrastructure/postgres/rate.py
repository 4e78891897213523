"""The per-minute caps in Postgres: one row per cap and key, one round trip per admission.

A server function does what `application.rate_window.Window.admit` does, under the row's
lock: slide the window to now, admit and count if under the cap, else answer the wait.
Two processes admitting the same key queue on that row lock, so they share one cap. The
time is the database server's, one clock for every gateway host, unless the caller passes
its own (tests do). The row is updated in place (no indexed column changes, so the update
is HOT): the table holds one row per cap and key, whatever the traffic. The transaction
commits without waiting for its WAL flush (`synchronous_commit` off for it alone): that
wait was 95% of an admission's cost here, and a crash that forgets a few counts is
harmless.
"""

from __future__ import annotations

from typing import Any

from application.ledger import PRINCIPALS_TOPIC_PREFIX, Ledger
from application.rate_counter import Clock, RateCounter
from application.rate_window import SLOT_SECONDS, SLOTS
from infrastructure.postgres import driver
from infrastructure.postgres.application_recorder import AsyncpgApplicationRecorder
from infrastructure.postgres.datastore import AsyncpgDatastore
from infrastructure.postgres.recorder import AsyncpgRecorder, DdlStep
from infrastructure.postgres.sql import quote_ident

TABLE = "rate_windows"
# Bump when the function's body changes: the new one is created beside the old.
FUNCTION = "rate_admit_v1"


class AsyncpgRateCounter(AsyncpgRecorder, RateCounter):
    def __init__(self, datastore: AsyncpgDatastore, name: str, clock: Clock | None = None) -> None:
        super().__init__(datastore)
        self.name = name
        self.clock = clock
        schema = quote_ident(datastore.schema)
        self.table = f"{schema}.{quote_ident(TABLE)}"
        self.function = f"{schema}.{quote_ident(FUNCTION)}"
        self.call = f"SELECT {self.function}($1::text, $2::text, $3::int, $4::float8)"
        # The count that reads the principals position first, per statement of that read.
        self._unless_moved: dict[str, str] = {}

    def ddl(self) -> list[DdlStep]:
        return [
            DdlStep(
                "relation",
                TABLE,
                f"CREATE TABLE IF NOT EXISTS {self.table} (counter text NOT NULL, "
                "key text NOT NULL, head bigint NOT NULL, counts int[] NOT NULL, "
                # Room on each page for the next version of a row: updates stay HOT.
                "PRIMARY KEY (counter, key)) WITH (fillfactor = 50)",
            ),
            DdlStep("function", FUNCTION, self._function()),
        ]

    admits_async = True

    def admit(self, key: str, cap: int) -> float | None:
        # Not retried on a lost connection: the admission may have been counted.
        wait = self.datastore.run(self._admit(key, cap), idempotent=False)
        return None if wait is None else float(wait)

    async def async_admit(self, key: str, cap: int) -> float | None:
        wait = await self.datastore.arun(self._admit(key, cap), idempotent=False)
        return None if wait is None else float(wait)

    def _admit(self, key: str, cap: int) -> driver.Operation[Any]:
        at = self.clock() if self.clock is not None else None

        async def admit(conn: driver.Connection) -> Any:
            return await conn.fetchval(self.call, self.name, key, cap, at)

        return admit

    async def async_admit_unless_moved(
        self, key: str, cap: int, ledger: Ledger, position: int
    ) -> tuple[bool, float | None] | None:
        recorder = ledger.recorder
        if (
            not isinstance(recorder, AsyncpgApplicationRecorder)
            or recorder.datastore is not self.datastore
        ):
            return None
        at = self.clock() if self.clock is not None else None

        async def admit(conn: driver.Connection) -> Any:
            where = await recorder.watched_position_sql(conn, PRINCIPALS_TOPIC_PREFIX)
            statement = self._unless_moved.get(where)
            if statement is None:
                # The count is a CASE branch: Postgres calls the function only when the
                # position read in this statement's snapshot is the one remembered.
                statement = self._unless_moved[where] = (
                    "SELECT COALESCE(p.at, 0) = $5, CASE WHEN COALESCE(p.at, 0) = $5 "
                    f"THEN {self.function}($1::text, $2::text, $3::int, $4::float8) END "
                    f"FROM ({where}) AS p(at)"
                )
            return await conn.fetchrow(statement, self.name, key, cap, at, position)

        unmoved, wait = await self.datastore.arun(admit, idempotent=False)
        return bool(unmoved), None if wait is None else float(wait)

    def _function(self) -> str:
        return f"""
CREATE OR REPLACE FUNCTION {self.function}(
    counter_name text, key_name text, cap int, at float8)
RETURNS float8
LANGUAGE plpgsql
AS $sluice$
DECLARE
    width constant float8 := {SLOT_SECONDS};
    slots constant int := {SLOTS};
    now_s float8 := COALESCE(at, extract(epoch FROM clock_timestamp()));
    now_slot bigint;
    old_head bigint;
    window_counts int[];
    shift bigint;
    total bigint;
    dropped bigint := 0;
BEGIN
    -- A count is not worth waiting for the WAL flush: this transaction commits without
    -- it. A server crash may forget the last few counts; it loses nothing else.
    PERFORM set_config('synchronous_commit', 'off', true);
    LOOP
        SELECT w.head, w.counts INTO old_head, window_counts FROM {self.table} AS w
         WHERE w.counter = counter_name AND w.key = key_name FOR UPDATE;
        EXIT WHEN FOUND;
        -- The first admission of this key; a concurrent first one wins, and we read it.
        INSERT INTO {self.table} (counter, key, head, counts)
        VALUES (counter_name, key_name, floor(now_s / width)::bigint,
                array_fill(0, ARRAY[slots - 1]) || 1)
        ON CONFLICT (counter, key) DO NOTHING;
        IF FOUND THEN
            RETURN NULL;
        END IF;
    END LOOP;
    IF cardinality(window_counts) <> slots THEN
        window_counts := array_fill(0, ARRAY[slots]);
    END IF;
    -- A clock that steps back counts its admissions in the newest slot.
    now_s := greatest(now_s, old_head * width);
    now_slot := floor(now_s / width)::bigint;
    shift := now_slot - old_head;
    IF shift >= slots THEN
        window_counts := array_fill(0, ARRAY[slots]);
    ELSIF shift > 0 THEN
        window_counts := window_counts[shift::int + 1:slots]
            || array_fill(0, ARRAY[shift::int]);
    END IF;
    SELECT sum(c) INTO total FROM unnest(window_counts) AS c;
    IF total < cap THEN
        window_counts[slots] := window_counts[slots] + 1;
        UPDATE {self.table} SET head = now_slot, counts = window_counts
         WHERE counter = counter_name AND key = key_name;
        RETURN NULL;
    END IF;
    -- Refused, and not counted: wait until enough of the oldest slots have left.
    FOR i IN 1..slots LOOP
        dropped := dropped + window_counts[i];
        IF total - dropped < cap THEN
            RETURN (now_slot + i) * width - now_s;
        END IF;
    END LOOP;
    RETURN width;  -- unreachable for a positive cap
END
$sluice$"""


def make_rate_counter(factory: Any, name: str, clock: Clock | None = None) -> AsyncpgRateCounter:
    """The counter `name`, in a table beside the events (one row per key)."""
    counter = AsyncpgRateCounter(factory.datastore, name, clock)
    counter.create_table()
    return counter
