"""What every recorder shares: its datastore and the creation of its tables."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from infrastructure.postgres import driver
from infrastructure.postgres.datastore import AsyncpgDatastore
from infrastructure.postgres.sql import DDL_LOCK_KEY, quote_ident

_FUNCTION_EXISTS = (
    "SELECT EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
    "WHERE n.nspname = $1 AND p.proname = $2)"
)


@dataclass(frozen=True)
class DdlStep:
    """A statement, skipped when the relation, function or column (`table.column`) it makes
    exists."""

    kind: Literal["relation", "function", "column", "always"]
    name: str
    statement: str


class AsyncpgRecorder:
    def __init__(self, datastore: AsyncpgDatastore) -> None:
        self.datastore = datastore

    def ddl(self) -> list[DdlStep]:
        return []

    def on_server_change(self, listener: Callable[[], None]) -> None:
        """See AsyncpgDatastore.on_server_change."""
        self.datastore.on_server_change(listener)

    def create_table(self) -> None:
        self.datastore.run(self._create_tables)

    async def async_create_table(self) -> None:
        await self.datastore.arun(self._create_tables)

    async def _create_tables(self, conn: driver.Connection) -> None:
        await self._run_ddl(conn, self.ddl())

    async def _run_ddl(self, conn: driver.Connection, steps: list[DdlStep]) -> None:
        schema = self.datastore.schema
        async with conn.transaction():
            # One process at a time: concurrent CREATE OR REPLACE FUNCTION
            # calls fail with "tuple concurrently updated".
            await conn.execute("SELECT pg_advisory_xact_lock($1)", DDL_LOCK_KEY)
            if not await conn.fetchval(
                "SELECT to_regnamespace($1) IS NOT NULL", quote_ident(schema)
            ):
                await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(schema)}")
            for step in steps:
                if await self._exists(conn, step):
                    continue
                await conn.execute(step.statement)

    async def _exists(self, conn: driver.Connection, step: DdlStep) -> bool:
        # Checked first because CREATE INDEX IF NOT EXISTS still takes a SHARE
        # lock on the table, and would queue behind live writers.
        if step.kind == "relation":
            name = f"{quote_ident(self.datastore.schema)}.{quote_ident(step.name)}"
            return bool(await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", name))
        if step.kind == "function":
            return bool(await conn.fetchval(_FUNCTION_EXISTS, self.datastore.schema, step.name))
        if step.kind == "column":
            table, _, column = step.name.partition(".")
            return bool(await conn.fetchval(_COLUMN_EXISTS, self.datastore.schema, table, column))
        return False


_COLUMN_EXISTS = (
    "SELECT EXISTS (SELECT 1 FROM information_schema.columns "
    "WHERE table_schema = $1 AND table_name = $2 AND column_name = $3)"
)
