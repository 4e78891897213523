"""The full sheet of a use case: what a model reads before calling it."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from application.results import Sheet
from application.use_case import UseCase


def sheet_of(use_case: type[UseCase[Any]]) -> Sheet:
    """Name, description, kind, JSON Schema of the parameters and of the result."""
    return Sheet(
        name=use_case.name,
        description=use_case.description(),
        kind=use_case.kind,
        parameters=parameters_schema(use_case),
        returns=result_schema(use_case),
    )


def parameters_schema(use_case: type[UseCase[Any]]) -> dict[str, Any]:
    schema = _clean(use_case.model_json_schema(mode="validation"))
    schema.pop("description", None)
    properties = schema.get("properties", {})
    for name, policy in use_case.guarded.items():
        # What a guarded argument may come from: the gateway refuses it otherwise.
        told = properties[name].get("description")
        properties[name]["description"] = (
            f"{told} {policy.note_for(name)}" if told else policy.note_for(name)
        )
    return {
        "type": "object",
        "properties": properties,
        "required": schema.get("required", []),
        "additionalProperties": False,
    }


def result_schema(use_case: type[UseCase[Any]]) -> dict[str, Any]:
    schema = TypeAdapter(use_case.result_type()).json_schema(mode="validation")
    inlined: dict[str, Any] = _clean(_inline(schema, schema.get("$defs", {})))
    return inlined


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """Replace local $refs by their definitions: a sheet reads top to bottom."""
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        return {k: _inline(v, defs) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    return node


def _clean(node: Any) -> Any:
    """Drop pydantic's generated titles, which repeat the property names."""
    if isinstance(node, dict):
        cleaned = {}
        for key, value in node.items():
            if key == "title" and isinstance(value, str):
                continue
            if key == "properties" and isinstance(value, dict):
                cleaned[key] = {name: _clean(prop) for name, prop in value.items()}
            else:
                cleaned[key] = _clean(value)
        return cleaned
    if isinstance(node, list):
        return [_clean(item) for item in node]
    return node
