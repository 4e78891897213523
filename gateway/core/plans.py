"""JSON plans: steps of tool + arguments, checked whole before anything runs.

A plan's JSON Schema is generated from the catalog (a closed set of tools, each with its
own argument schema). An argument is a literal fixed at planning time or a reference to
an earlier step's result (`{"$ref": "balance"}` or `{"$ref": "receipt.payer_balance"}`);
arguments a use case marks `LiteralOnly` may not be references (provenance). A checked
plan is compiled to a one-line-per-step Python program, so it takes exactly the path of a
Python program: sandbox, caps, preview, confirmation, commit.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from typing import Any

import jsonschema

from domain.text import line_and_column
from gateway.core.catalog import Catalog
from gateway.core.program.errors import ProgramError
from gateway.core.sheets import result_schema

RESULT_NAME = r"^[a-z][a-z0-9_]{0,31}$"
REFERENCE = r"^[a-z][a-z0-9_]{0,31}(\.[a-z][a-z0-9_]{0,63})?$"
MAX_NESTING = 16


def plan_schema(catalog: Catalog, max_steps: int) -> dict[str, Any]:
    """The whole plan contract, as published to a planner."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "required": ["steps"],
        "properties": {
            "steps": {
                "type": "array",
                "minItems": 1,
                "maxItems": max_steps,
                "items": {"oneOf": [step_schema(catalog, name) for name in catalog.names]},
            }
        },
    }


def step_schema(catalog: Catalog, name: str) -> dict[str, Any]:
    use_case = catalog.get(name)
    parameters = catalog.sheet(name).parameters
    reference = {
        "type": "object",
        "additionalProperties": False,
        "required": ["$ref"],
        "properties": {"$ref": {"type": "string", "pattern": REFERENCE}},
    }
    arguments = {
        argument: schema if argument in use_case.literal_only else {"anyOf": [schema, reference]}
        for argument, schema in parameters["properties"].items()
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["tool", "args"],
        "properties": {
            "tool": {"const": name},
            "args": {
                "type": "object",
                "additionalProperties": False,
                "required": parameters["required"],
                "properties": arguments,
            },
            "result": {"type": "string", "pattern": RESULT_NAME},
        },
    }


def compile_plan(text: str, catalog: Catalog, *, max_bytes: int, max_steps: int) -> str:
    """Check a plan whole, then write it as a Python program with step N on line N."""
    size = len(text.encode())
    if size > max_bytes:
        raise ProgramError("limit", f"plan size: {size} bytes is over the limit of {max_bytes}")
    plan = _parse(text)
    _check_envelope(plan, catalog, max_steps)
    lines = []
    results: dict[str, tuple[int, str]] = {}
    for number, step in enumerate(plan["steps"], 1):
        lines.append(_compile_step(number, step, catalog, results))
    return "\n".join([*lines, f"step_{len(lines)}"]) + "\n"


def at_step(error: ProgramError, steps: int) -> ProgramError:
    """A compiled plan's error, placed at its step (step N is line N) instead of a line."""
    if error.line is None or error.step is not None:
        return error
    step = min(error.line, steps)
    return ProgramError(error.stage, error.message, step=step, refusal=error.refusal)


def _parse(text: str) -> dict[str, Any]:
    if _nesting(text) > MAX_NESTING:
        raise ProgramError("syntax", f"plan: JSON nested deeper than {MAX_NESTING} levels")
    try:
        plan = json.loads(text, parse_constant=_not_a_number)
    except json.JSONDecodeError as error:
        raise ProgramError(
            "syntax", f"plan: invalid JSON: {error.msg}", error.lineno, error.colno
        ) from None
    except ValueError:
        raise _long_number(text) from None
    if not isinstance(plan, dict):
        raise ProgramError("check", "plan: must be a JSON object with a list of steps")
    return plan


def _not_a_number(constant: str) -> Any:
    # Python's JSON reads NaN and Infinity, which JSON itself does not have.
    raise ProgramError("syntax", f"plan: invalid JSON: {constant} is not a number")


def _long_number(text: str) -> ProgramError:
    """json.loads refuses an integer past sys.get_int_max_str_digits(): say where it is."""
    limit = sys.get_int_max_str_digits()
    found = re.search(rf"\d{{{limit + 1},}}", text)
    if found is None:
        return ProgramError("syntax", f"plan: invalid JSON: a number has over {limit} digits")
    line, column = line_and_column(text, found.start())
    digits = len(found.group())
    return ProgramError(
        "syntax",
        f"plan: invalid JSON: a number of {digits} digits is over the limit of {limit}",
        line,
        column,
    )


def _nesting(text: str) -> int:
    """How deep brackets go, counted without parsing (a parser could overflow first)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped = not escaped and char == "\\"
            in_string = escaped or char != '"'
            continue
        if char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _check_envelope(plan: dict[str, Any], catalog: Catalog, max_steps: int) -> None:
    envelope = plan_schema(catalog, max_steps)
    envelope["properties"]["steps"]["items"] = {
        "type": "object",
        "required": ["tool", "args"],
        "properties": {"tool": {"enum": list(catalog.names)}, "args": {"type": "object"}},
    }
    _validate(plan, envelope, "plan")
    for number, step in enumerate(plan["steps"], 1):
        use_case = catalog.get(step["tool"])
        for argument in use_case.literal_only:
            if isinstance(step["args"].get(argument), dict):
                raise _at(
                    number,
                    f"{use_case.name}.{argument} must be a literal fixed in the plan, "
                    "not a reference to data a step read",
                )
        _validate(step, step_schema(catalog, step["tool"]), "plan", number)


def _validate(value: Any, schema: dict[str, Any], where: str, step: int | None = None) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is None:
        return
    if error.validator == "anyOf" and not isinstance(error.instance, dict):
        # A value or a reference, given neither: what is wrong with it as a value.
        as_value = [e for e in error.context or () if e.relative_schema_path[0] == 0]
        error = jsonschema.exceptions.best_match(as_value) or error
    path = [str(part) for part in error.absolute_path]
    if step is None and len(path) >= 2 and path[0] == "steps" and path[1].isdigit():
        step = int(path[1]) + 1
        path = path[2:]
    located = ".".join(path)
    if error.validator in ("maxItems", "minItems") and isinstance(error.instance, list):
        bound = "at most" if error.validator == "maxItems" else "at least"
        reason = f"{len(error.instance)} items, where {bound} {error.validator_value} are allowed"
    else:
        reason = _short(error.message)
    message = f"{where}: {located + ': ' if located else ''}{reason}"
    raise ProgramError("check", message, step=step)


def _compile_step(
    number: int, step: dict[str, Any], catalog: Catalog, results: dict[str, tuple[int, str]]
) -> str:
    tool = step["tool"]
    arguments = []
    for argument, value in step["args"].items():
        if isinstance(value, dict):
            target = _reference(catalog, number, f"{tool}.{argument}", value["$ref"], results)
            arguments.append(f"{argument}={target}")
        else:
            arguments.append(f"{argument}={value!r}")
    name = step.get("result")
    if name is not None:
        if name in results:
            raise _at(number, f"result name {name} is already taken by step {results[name][0]}")
        if keyword.iskeyword(name) or name in catalog:
            raise _at(number, f"result name {name} is reserved")
        results[name] = (number, tool)
    return f"step_{number} = {tool}({', '.join(arguments)})"


def _reference(
    catalog: Catalog, number: int, where: str, reference: str, results: dict[str, tuple[int, str]]
) -> str:
    target, _, field = reference.partition(".")
    if target not in results:
        raise _at(number, f"{where}: reference {reference} names no earlier step's result")
    source_step, source_tool = results[target]
    if not field:
        return f"step_{source_step}"
    if field not in result_fields(catalog, source_tool):
        raise _at(number, f"{where}: {source_tool} results have no field {field}")
    return f"step_{source_step}[{field!r}]"


def _at(step: int, message: str) -> ProgramError:
    return ProgramError("check", f"plan: {message}", step=step)


def _short(text: str) -> str:
    return text if len(text) <= 200 else text[:197] + "..."


def result_fields(catalog: Catalog, tool: str) -> set[str]:
    schema = result_schema(catalog.get(tool))
    return set(schema.get("properties", {}))
