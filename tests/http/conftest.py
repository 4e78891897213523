"""The HTTP app in process (httpx through Starlette's TestClient) on each embedded store."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from gateway.bootstrap import Sluice
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from gateway.interfaces.http.app import create_app
from tests.conftest import STORES, TEST_CAPS, Clock
from tests.stores import empty_store

KEYS = {name: f"sk-demo-{name}" for name in ("alice", "bob", "carla", "teller", "auditor", "admin")}


def auth(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[name]}"}


@pytest.fixture(params=STORES)
def sluice(
    request: pytest.FixtureRequest, tmp_path: Path, sandbox: Sandbox, clock: Clock
) -> Iterator[Sluice]:
    caps = replace(TEST_CAPS, requests_per_minute=10_000, programs_per_minute=10_000)
    with (
        empty_store(request.param, tmp_path) as url,
        Sluice(url, caps, sandbox=sandbox, clock=clock) as built,
    ):
        seed(built.gateway)
        yield built


@pytest.fixture
def app(sluice: Sluice) -> FastAPI:
    return create_app(sluice, max_body_bytes=16 * 1024)


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with empty_store(request.param, tmp_path) as url:
        yield url
