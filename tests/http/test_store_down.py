"""When the link to the store is cut, the API says so (503 with Retry-After), /health too,
and it recovers when the link comes back."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.postgres import support
from tests.served import serving
from tests.stores import postgres_url
from tests.tcp_proxy import Proxy, proxy

SLUICE = str(Path(sys.executable).parent / "sluice")
ALICE = {"Authorization": "Bearer sk-demo-alice"}


@pytest.fixture
def through_a_proxy(schema: str) -> Iterator[tuple[str, Proxy]]:
    server = urlsplit(support.database_url())
    with proxy((server.hostname or "127.0.0.1", server.port or 5432)) as link:
        url = postgres_url(schema).replace(f":{server.port or 5432}/", f":{link.port}/", 1)
        env = {**os.environ, "SLUICE_DATABASE_URL": url, "POSTGRES_CONNECT_TIMEOUT": "2"}
        with serving([SLUICE, "serve", "--demo"], env) as base:
            yield base, link


@pytest.mark.postgres
def test_a_cut_link_to_the_store_is_a_503_and_a_degraded_health(
    through_a_proxy: tuple[str, Proxy],
) -> None:
    base, link = through_a_proxy
    assert httpx.get(f"{base}/v1/accounts/alice", headers=ALICE, timeout=10).status_code == 200

    link.cut()
    read = httpx.get(f"{base}/v1/accounts/alice", headers=ALICE, timeout=30)
    started = time.monotonic()
    health = httpx.get(f"{base}/health", timeout=30)
    assert time.monotonic() - started < 1  # /health answers within a second, always

    assert read.status_code == 503, read.text
    assert read.headers["content-type"].startswith("application/problem+json")
    assert read.headers["retry-after"] == "1"
    assert read.json()["type"] == "urn:sluice:problem:unavailable"
    assert health.status_code == 503
    assert health.json()["status"] == "degraded"

    link.open = True  # the link comes back
    again = httpx.get(f"{base}/v1/accounts/alice", headers=ALICE, timeout=30)
    assert again.status_code == 200, again.text
    assert httpx.get(f"{base}/health", timeout=30).json()["status"] == "ok"


@pytest.mark.postgres
def test_readiness_follows_the_store_and_liveness_does_not(
    through_a_proxy: tuple[str, Proxy],
) -> None:
    base, link = through_a_proxy
    assert httpx.get(f"{base}/readyz", timeout=10).json() == {
        "status": "ready",
        "checks": [{"name": "store", "status": "ok"}],
    }

    link.cut()
    started = time.monotonic()
    ready = httpx.get(f"{base}/readyz", timeout=30)
    assert time.monotonic() - started < 1  # within the probe's deadline, always
    alive = httpx.get(f"{base}/livez", timeout=30)

    assert ready.status_code == 503
    assert ready.json() == {
        "status": "not ready",
        "checks": [{"name": "store", "status": "degraded"}],
    }
    assert (alive.status_code, alive.json()) == (200, {"status": "ok"})  # no restart wanted

    link.open = True  # the link comes back
    deadline = time.monotonic() + 30
    while httpx.get(f"{base}/readyz", timeout=30).status_code != 200:
        assert time.monotonic() < deadline, "never ready again"
        time.sleep(0.1)
