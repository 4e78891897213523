"""/mcp lives in the app's lifespan: served once it starts, again after a restart, and a
clear 503 when it has not started."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.http.conftest import auth

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}
HEADERS = auth("alice") | {"Accept": "application/json, text/event-stream"}


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
