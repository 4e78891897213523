"""/openapi.json documents what every operation really answers: a 2xx body with a schema
(a named model, or a list of one, or text), and each refusal as application/problem+json."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.http.documented_examples import (
    assert_program_examples_hold,
    assert_refused_as_documented,
)

PROBLEM_JSON = "application/problem+json"
# A degraded /health answers its Health document with 503, not a problem.
NOT_PROBLEMS = {("get", "/health", "503"), ("get", "/readyz", "503")}
# Operations that refuse nothing: the document itself, and liveness.
NO_REFUSALS = {"/openapi.json", "/livez"}


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
    ]


def described(schema: dict[str, Any]) -> bool:
    """A schema that says something: a component, a list of components, or text."""
    if "$ref" in schema:
        return True
    if schema.get("type") == "array":
        return "$ref" in schema.get("items", {})
    return schema.get("type") == "string"


def test_every_operation_documents_its_2xx_body(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    undescribed = []
    for method, path, operation in operations(document):
        bodies = [
            (status, media, content.get("schema", {}))
            for status, response in operation["responses"].items()
            if status.startswith("2")
            for media, content in response.get("content", {}).items()
        ]
        if not bodies and [s for s in operation["responses"] if s.startswith("2")] == ["204"]:
            continue  # No Content: signing out of the console, say
        if not bodies or not all(described(schema) for _, _, schema in bodies):
            undescribed.append((method, path, bodies))
    assert undescribed == []


def test_every_refusal_is_documented_as_a_problem(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    problem = document["components"]["schemas"]["Problem"]
    assert set(problem["required"]) == {"type", "title", "status", "detail"}
    not_problems = []
    for method, path, operation in operations(document):
        refusals = {s: r for s, r in operation["responses"].items() if s[0] in "45"}
        assert refusals or path in NO_REFUSALS, (method, path)
        for status, response in refusals.items():
            if (method, path, status) in NOT_PROBLEMS:
                continue
            if list(response.get("content", {})) != [PROBLEM_JSON]:
                not_problems.append((method, path, status))
    assert not_problems == []


def test_a_stale_confirmation_is_documented_with_its_fresh_proposal(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    stale = document["paths"]["/v1/programs/{run_id}/confirm"]["post"]["responses"]["409"]
    schema = stale["content"][PROBLEM_JSON]["schema"]
    assert schema == {"$ref": "#/components/schemas/StaleProblem"}
    assert "proposal" in document["components"]["schemas"]["StaleProblem"]["properties"]


def example(document: dict[str, Any], path: str, method: str, status: str, name: str) -> Any:
    media = document["paths"][path][method]["responses"][status]["content"][PROBLEM_JSON]
    return media["examples"][name]["value"]


def test_the_documented_problem_examples_are_what_the_server_answers(
    client: TestClient,
) -> None:
    document = client.get("/openapi.json").json()
    alice = {"Authorization": "Bearer sk-demo-alice"}
    asked = {
        ("401", "no-key"): client.get("/v1/accounts/alice"),
        ("401", "unknown-key"): client.get(
            "/v1/accounts/alice", headers={"Authorization": "Bearer sk-unknown"}
        ),
        ("403", "not-yours"): client.get("/v1/accounts/bob", headers=alice),
        ("404", "no-proposal"): client.get(
            "/v1/programs/00000000-0000-4000-8000-000000000000", headers=alice
        ),
        ("422", "invalid-request"): client.post(
            "/v1/programs", headers=alice, json={"source": "x = 1"}
        ),
    }
    for (status, name), answer in asked.items():
        documented = example(document, "/v1/accounts/{account}", "get", status, name)
        got = answer.json()
        assert answer.status_code == int(status)
        assert answer.headers["x-request-id"] == got.pop("request_id")
        documented.pop("request_id")
        assert got == documented, (status, name)


def test_the_banks_program_examples_are_what_it_previews_and_refuses(client: TestClient) -> None:
    """The document's program, plan, event, result and refusal are the bank's own
    (application/bank/api_examples.py), as the served bank takes and answers them."""
    alice = {"Authorization": "Bearer sk-demo-alice"}

    document = assert_program_examples_hold(client, alice)
    refused = client.post(
        "/v1/programs",
        headers=alice,
        json={"language": "python", "source": 'transfer(payer="alice", payee="dan", amount=1)'},
    )

    assert_refused_as_documented(document, refused)
