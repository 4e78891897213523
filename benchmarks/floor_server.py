"""The floors of `make bench-alternative`: FastAPI routes on the event loop that do the least
a balance read and a transfer can do on this stack, and nothing else (no authentication, no
middleware, no events), served by uvicorn like the other two:

- `GET /accounts/{name}`: one asyncpg statement, its value answered;
- `POST /transfer`: one durable commit (a row of the payer and one of the payee updated in
  one transaction, on a table of the server's own schema, dropped when it stops): what
  every transfer pays at least for its WAL flush, whoever makes it.

    python -m benchmarks.floor_server --database-url URL --port PORT
"""

from __future__ import annotations

import argparse
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg  # type: ignore[import-untyped, unused-ignore]
import uvicorn
from fastapi import FastAPI


def create_app(database_url: str) -> FastAPI:
    pools: list[Any] = []  # the pool, made at startup

    schema = f"bench_floor_{os.getpid()}"
    table = f"{schema}.balances"

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        pool = await asyncpg.create_pool(database_url, min_size=2, max_size=8)
        pools.append(pool)
        await pool.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")
        await pool.execute(f"CREATE TABLE {table} (name text PRIMARY KEY, balance numeric)")
        yield
        await pool.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        await pool.close()

    app = FastAPI(lifespan=lifespan)

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/accounts/{name}")
    async def balance(name: str) -> dict[str, Any]:
        value = await pools[0].fetchval("SELECT $1::text", name)
        return {"account": value, "balance": "0.00"}

    @app.post("/transfer")
    async def transfer(body: dict[str, Any]) -> dict[str, Any]:
        async with pools[0].acquire() as conn, conn.transaction():
            # In name order, as any transfer must lock two rows, or two of them deadlock.
            for name, change in sorted(((body["payer"], -1), (body["payee"], 1))):
                await conn.execute(
                    f"INSERT INTO {table} VALUES ($1, $2) ON CONFLICT (name) "
                    f"DO UPDATE SET balance = {table}.balance + $2",
                    name,
                    change * body["amount"],
                )
        return body

    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    app = create_app(args.database_url)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
