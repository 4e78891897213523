"""Schemathesis against /openapi.json: generated requests never get a 5xx, and every response
matches the documented schema (status code, content type, headers, body).

Schema-valid requests are not expected to succeed: most are refused by business rules
(an unknown program id, a use case the principal may not call), with a documented problem.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from gateway.bootstrap import Sluice
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from gateway.interfaces.http.app import create_app
from tests.conftest import TEST_CAPS, TEST_LIMITS

# One app for the whole module: schemathesis loads the schema when the module is imported.
_SANDBOX = Sandbox(TEST_LIMITS)
_SLUICE = Sluice(
    "memory://",
    replace(TEST_CAPS, requests_per_minute=1_000_000, programs_per_minute=1_000_000),
    sandbox=_SANDBOX,
)
seed(_SLUICE.gateway)
schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(_SLUICE))
EXAMPLES = int(os.environ.get("SLUICE_FUZZ_EXAMPLES", "30"))


@pytest.fixture(scope="module", autouse=True)
def _close() -> Iterator[None]:
    yield
    _SLUICE.close()
    _SANDBOX.close()


CONFORMANCE = [
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
ADMIN = {"Authorization": "Bearer sk-demo-admin"}


@schema.exclude(path_regex="^/v1/agent/").parametrize()
@FUZZ
def test_generated_requests_get_documented_answers(case: schemathesis.Case[Any]) -> None:
    case.call_and_validate(headers=ADMIN, checks=[not_a_server_error, *CONFORMANCE])


@schema.include(path_regex="^/v1/agent/").parametrize()
@FUZZ
def test_the_agent_without_a_model_answers_its_documented_503(
    case: schemathesis.Case[Any],
) -> None:
    # No model is configured here: 503 is the agent's documented answer, not a crash.
    response = case.call_and_validate(headers=ADMIN, checks=CONFORMANCE)
    assert response.status_code in {400, 401, 403, 404, 405, 422, 503}
