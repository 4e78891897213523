"""/mcp lives in the app's lifespan: served once it starts, again after a restart, and a
clear 503 when it has not started."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from gateway.bootstrap import Sluice
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from gateway.interfaces.http.app import create_app
from tests.conftest import TEST_CAPS, Clock
from tests.http.conftest import auth
from tests.mcp.support import INITIALIZE

HEADERS_ACCEPT = {"Accept": "application/json, text/event-stream"}
HEADERS = auth("alice") | HEADERS_ACCEPT


def test_mcp_answers_within_the_lifespan_and_after_a_restart(app: FastAPI) -> None:
    for _ in range(2):
        with TestClient(app, base_url="http://127.0.0.1:8000") as client:
            answer = client.post("/mcp", json=INITIALIZE, headers=HEADERS)
            assert answer.status_code == 200, answer.text
            assert '"serverInfo":{"name":"sluice"' in answer.text.replace(" ", "")


def test_mcp_outside_the_lifespan_is_a_clear_503(app: FastAPI) -> None:
    answer = TestClient(app).post("/mcp", json=INITIALIZE, headers=HEADERS)

    assert answer.status_code == 503
    assert answer.json()["error"]["message"] == "unavailable: MCP is not running"


def test_mcp_requests_count_against_the_same_request_cap_as_the_api(
    tmp_path: Path, sandbox: Sandbox, clock: Clock
) -> None:
    caps = replace(TEST_CAPS, requests_per_minute=2)
    with Sluice(f"sqlite:///{tmp_path / 'cap.db'}", caps, sandbox=sandbox, clock=clock) as sluice:
        seed(sluice.gateway)
        app = create_app(sluice)
        with TestClient(app, base_url="http://127.0.0.1:8000") as client:
            assert client.get("/v1/directory", headers=auth("alice")).status_code == 200
            assert client.post("/mcp", json=INITIALIZE, headers=HEADERS).status_code == 200
            refused = client.post("/mcp", json=INITIALIZE, headers=HEADERS)
            other = client.post("/mcp", json=INITIALIZE, headers=auth("bob") | HEADERS_ACCEPT)

    assert refused.status_code == 429
    assert int(refused.headers["retry-after"]) >= 1
    message = refused.json()["error"]["message"]
    assert message.startswith("rate-limited: cap requests_per_minute: principal alice")
    assert other.status_code == 200  # the cap is per principal
