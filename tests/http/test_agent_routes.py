"""The agent's HTTP routes with no model configured: a clear 503, and everything else works."""

from __future__ import annotations

from typing import Any, cast

import pytest
from fastapi.testclient import TestClient

from tests.http.conftest import auth


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in (
        "SLUICE_LLM_BASE_URL",
        "SLUICE_LLM_MODEL",
        "SLUICE_LLM_API_KEY",
        "OPENAI_API_KEY",
    ):
        monkeypatch.delenv(variable, raising=False)


def test_without_a_model_the_agent_answers_503_saying_how_to_configure_one(
    client: TestClient,
) -> None:
    from gateway.interfaces.http.app import create_app

    with TestClient(
        create_app(cast(Any, client.app).state.sluice)
    ) as fresh:  # built without a model
        response = fresh.post("/v1/agent/messages", headers=auth("alice"), json={"text": "hello"})
        still_works = fresh.get("/v1/directory", headers=auth("alice"))

    assert response.status_code == 503
    assert response.headers["content-type"].startswith("application/problem+json")
    assert "SLUICE_LLM_MODEL" in response.json()["detail"]
    assert still_works.status_code == 200


def test_agent_routes_need_a_key_and_a_well_formed_message(client: TestClient) -> None:
    assert client.post("/v1/agent/messages", json={"text": "hi"}).status_code == 401
    empty = client.post("/v1/agent/messages", headers=auth("alice"), json={"text": ""})
    assert empty.status_code == 422
