"""The floor of `make bench-alternative`'s balance read: a FastAPI route on the event loop that
makes one asyncpg statement and answers its value, and nothing else (no authentication, no
middleware, no read model): what any authenticated read of one statement or more costs at
least on this stack, served by uvicorn like the other two.

    python -m benchmarks.floor_server --database-url URL --port PORT
"""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg  # type: ignore[import-untyped, unused-ignore]
import uvicorn
from fastapi import FastAPI


def create_app(database_url: str) -> FastAPI:
    pools: list[Any] = []  # the pool, made at startup

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        pools.append(await asyncpg.create_pool(database_url, min_size=2, max_size=8))
        yield
        await pools[0].close()

    app = FastAPI(lifespan=lifespan)

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/accounts/{name}")
    async def balance(name: str) -> dict[str, Any]:
        value = await pools[0].fetchval("SELECT $1::text", name)
        return {"account": value, "balance": "0.00"}

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
