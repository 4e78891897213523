"""The OpenAPI document's examples in the served domain's words (application/api_examples.py).

The models and problem examples the gateway declares carry examples of their own; those that
name a domain's use cases, records and refusals are replaced here by the served domain's
(`Domain.api_examples`), or left out when it declares none. A stale confirmation's example
is the gateway's own message, in the words the domain names its records with.
"""

from __future__ import annotations

import copy
from typing import Any

from application.api_examples import ApiExamples
from application.domains import Domain
from gateway.core.problem import PROBLEM_JSON
from gateway.core.proposals import stale_detail

AT = {"line": 1, "column": 1}


def in_domain_words(document: dict[str, Any], domain: Domain) -> dict[str, Any]:
    """A copy of `document` with the domain's examples (the models' are shared by apps)."""
    document = copy.deepcopy(document)
    words, examples = domain.owned_words, domain.api_examples
    for status, name, example in _problem_examples(document):
        if (status, name) == ("409", "stale"):
            example["summary"] = f"The {words.records} moved since the preview"
            example["value"]["detail"] = stale_detail(words.records)
        elif (status, name) == ("403", "not-yours") and examples is not None:
            example["summary"] = f"Another principal's {words.record}"
            example["value"]["detail"] = examples.not_yours
        elif (status, name) == ("422", "refused") and examples is not None:
            example["value"] |= _refused(examples)
    if examples is None:
        _leave_out(document)
    else:
        _models(document["components"]["schemas"], examples)
        _routes(document["paths"], examples)
    return document


def _problem_examples(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    found = []
    for item in document.get("paths", {}).values():
        for operation in item.values():
            for status, response in operation.get("responses", {}).items():
                media = response.get("content", {}).get(PROBLEM_JSON, {})
                for name, example in media.get("examples", {}).items():
                    found.append((status, name, example))
    return found


def _refused(examples: ApiExamples) -> dict[str, Any]:
    where = f"(line {AT['line']}, column {AT['column']})"
    return {"detail": f"{examples.refused} {where}", "refusal": examples.refusal, **AT}


# The models whose examples name a domain's program, event or refusal.
PROGRAMS, EVENTS, REFUSALS = (
    ("Proposal", "RunStory"),
    ("EventRecord", "LogEvent"),
    (
        "Problem",
        "StaleProblem",
    ),
)


def _models(schemas: dict[str, Any], examples: ApiExamples) -> None:
    schemas["ProgramRequest"]["examples"] = [
        {"language": "python", "source": examples.program},
        {"language": "plan", "source": examples.plan},
    ]
    for model in PROGRAMS:
        for example in schemas[model].get("examples", ()):
            example["source"] = examples.program
            if "caps" in example.get("preview", {}):
                example["preview"]["caps"] = {examples.use_case: {"used": 1, "limit": 10}}
    schemas["Outcome"]["examples"][0]["result"] = examples.result
    for model in EVENTS:
        for example in schemas[model].get("examples", ()):
            example.update(examples.event)
    for model in REFUSALS:
        for example in schemas[model].get("examples", ()):
            example.update(_refused(examples))


def _routes(paths: dict[str, Any], examples: ApiExamples) -> None:
    directory = paths["/v1/directory"]["get"]["responses"]["200"]["content"]["text/plain"]
    directory["example"] = examples.directory
    _describe_use_case(paths, f"A use case, e.g. {examples.use_case}.")


def _describe_use_case(paths: dict[str, Any], description: str) -> None:
    for parameter in paths["/v1/use-cases/{name}"]["post"]["parameters"]:
        if parameter["name"] == "name":
            parameter["description"] = parameter["schema"]["description"] = description


def _leave_out(document: dict[str, Any]) -> None:
    """No example of another domain's: the models' and routes' that name one go."""
    schemas = document["components"]["schemas"]
    for model in ("ProgramRequest", "Outcome", *PROGRAMS, *EVENTS, *REFUSALS):
        schemas.get(model, {}).pop("examples", None)
    for status, name, _ in _problem_examples(document):
        if (status, name) in {("403", "not-yours"), ("422", "refused")}:
            for item in document["paths"].values():
                for operation in item.values():
                    media = operation["responses"].get(status, {}).get("content", {})
                    media.get(PROBLEM_JSON, {}).get("examples", {}).pop(name, None)
    directory = document["paths"]["/v1/directory"]["get"]["responses"]["200"]
    directory["content"]["text/plain"].pop("example", None)
    _describe_use_case(document["paths"], "A use case's name.")
