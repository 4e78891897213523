"""What a served domain's OpenAPI document shows as examples is what it takes and answers
(application/api_examples.py): its program previews the documented event and result, its
plan runs, its directory holds the documented line, and its refusals read as documented."""

from __future__ import annotations

from typing import Any, Protocol

PROBLEM_JSON = "application/problem+json"
SHOWN = ("account", "type", "data")


class Answer(Protocol):
    """An HTTP answer, as httpx and Starlette's test client give it."""

    @property
    def status_code(self) -> int: ...

    @property
    def text(self) -> str: ...

    def json(self) -> Any: ...


class Client(Protocol):
    def get(self, url: str, *, headers: dict[str, str] | None = ...) -> Any: ...

    def post(self, url: str, *, headers: dict[str, str] | None = ..., json: Any = ...) -> Any: ...


def problem_example(document: dict[str, Any], path: str, status: str, name: str) -> Any:
    media = document["paths"][path]["get"]["responses"][status]["content"][PROBLEM_JSON]
    return media["examples"][name]["value"]


def assert_program_examples_hold(client: Client, who: dict[str, str]) -> dict[str, Any]:
    """Post the documented program and plan as `who`; the document, for more checks."""
    document: dict[str, Any] = client.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    program, plan = schemas["ProgramRequest"]["examples"]

    proposed = client.post("/v1/programs", headers=who, json=program)
    assert proposed.status_code == 201, proposed.text
    preview = proposed.json()["preview"]
    assert preview["result"] == schemas["Outcome"]["examples"][0]["result"]
    [event] = schemas["EventRecord"]["examples"]
    assert {k: preview["events"][0][k] for k in SHOWN} == {k: event[k] for k in SHOWN}
    [proposal] = schemas["Proposal"]["examples"]
    assert proposal["source"] == program["source"]
    assert set(proposal["preview"]["caps"]) <= set(preview["caps"])

    read = client.post("/v1/programs", headers=who, json=plan)
    assert read.status_code in (200, 201), read.text
    assert read.json()["status"] == "committed"

    directory = client.get("/v1/directory", headers=who).text.splitlines()
    assert (
        document["paths"]["/v1/directory"]["get"]["responses"]["200"]["content"]["text/plain"][
            "example"
        ]
        in directory
    )
    return document


def assert_refused_as_documented(document: dict[str, Any], answer: Answer) -> None:
    """A program's refusal reads as the documented 422 and the Problem model's example."""
    assert answer.status_code == 422, answer.text
    got = answer.json()
    [model] = document["components"]["schemas"]["Problem"]["examples"]
    media = document["paths"]["/v1/programs"]["post"]["responses"]["422"]["content"]
    documented = media[PROBLEM_JSON]["examples"]["refused"]["value"]
    for shown in (documented, model):
        for field in ("type", "detail", "line", "column", "refusal"):
            assert got[field] == shown[field], (field, got, shown)
