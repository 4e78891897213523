"""The shapes the models must reply in, and how a reply is read and checked.

The schemas are strict-mode compatible (every property required, unused ones null, no
additional properties): a provider with json_schema support enforces them while decoding.
Whatever the provider claims, the reply is parsed and validated here again; a provider
without json_schema gets the schema in its prompt and its text is cut down to the object.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

import jsonschema

from application.inert_text import inert

MAX_TEXT = 4000
MAX_SOURCE = 20_000


@dataclass(frozen=True)
class OutputSchema:
    name: str
    schema: dict[str, Any]

    def response_format(self) -> dict[str, Any]:
        return {
            "type": "json_schema",
            "json_schema": {"name": self.name, "schema": self.schema, "strict": True},
        }

    def instructions(self) -> str:
        """For a provider without json_schema: the same contract, stated in the prompt."""
        return (
            "Reply with exactly one JSON object and nothing else (no code fences, no prose), "
            f"valid against this JSON Schema:\n{json.dumps(self.schema, separators=(',', ':'))}"
        )


def _nullable(kind: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [kind, {"type": "null"}]}


PLANNER_OUTPUT = OutputSchema(
    "sluice_planner_reply",
    {
        "type": "object",
        "additionalProperties": False,
        "required": ["kind", "language", "source", "explanation", "text"],
        "properties": {
            "kind": {
                "type": "string",
                "enum": ["program", "question", "answer"],
                "description": "program: a program to run; question: ask the user; "
                "answer: reply without reading or changing anything.",
            },
            "language": _nullable(
                {
                    "type": "string",
                    "enum": ["python", "plan"],
                    "description": "For a program: python, or plan for a JSON plan.",
                }
            ),
            "source": _nullable(
                {"type": "string", "description": "For a program: its text (a plan as JSON)."}
            ),
            "explanation": _nullable(
                {"type": "string", "description": "For a program: what it does, in one line."}
            ),
            "text": _nullable(
                {"type": "string", "description": "For a question or an answer: its text."}
            ),
        },
    },
)

ANSWER_OUTPUT = OutputSchema(
    "sluice_answer",
    {
        "type": "object",
        "additionalProperties": False,
        "required": ["text", "claims"],
        "properties": {
            "text": {"type": "string", "description": "The reply to the user."},
            "claims": {
                "type": "string",
                "enum": ["success", "failure"],
                "description": "success if the reply says the request was carried out, "
                "failure if it says it was not.",
            },
        },
    },
)


class StructuredOutputError(ValueError):
    """A reply that is not one JSON object valid against its schema."""


@dataclass(frozen=True)
class PlannerReply:
    kind: Literal["program", "question", "answer"]
    text: str | None = None
    language: Literal["python", "plan"] | None = None
    source: str | None = None
    explanation: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The brief form: `{kind, language, source, explanation}` or `{kind, text}`."""
        if self.kind == "program":
            return {
                "kind": "program",
                "language": self.language,
                "source": self.source,
                "explanation": self.explanation,
            }
        return {"kind": self.kind, "text": self.text}


@dataclass(frozen=True)
class ModelAnswer:
    text: str
    claims: Literal["success", "failure"]


def extract_object(content: str | None) -> Any:
    """The JSON object in a reply: the whole text, else inside fences, else first { to last }."""
    if content is None or not content.strip():
        raise StructuredOutputError("the reply is empty")
    text = content.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.DOTALL | re.IGNORECASE)
    if fenced:
        text = fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise StructuredOutputError("the reply holds no JSON object")
    try:
        return json.loads(text[start : end + 1])
    except json.JSONDecodeError as error:
        raise StructuredOutputError(f"the reply is not valid JSON: {error.msg}") from None


def validate(value: Any, schema: OutputSchema) -> dict[str, Any]:
    validator = jsonschema.Draft202012Validator(schema.schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is not None:
        where = ".".join(str(part) for part in error.absolute_path)
        raise StructuredOutputError(f"{where + ': ' if where else ''}{_short(error.message)}")
    assert isinstance(value, dict)
    return value


def parse_planner_reply(content: str | None) -> PlannerReply:
    reply = validate(extract_object(content), PLANNER_OUTPUT)
    kind = reply["kind"]
    if kind == "program":
        if not reply["language"] or not (reply["source"] or "").strip():
            raise StructuredOutputError("a program needs its language and a non-empty source")
        if len(reply["source"]) > MAX_SOURCE:
            raise StructuredOutputError(f"source: longer than {MAX_SOURCE} characters")
        return PlannerReply(
            kind="program",
            language=reply["language"],
            source=reply["source"],
            explanation=_clip(reply["explanation"] or ""),
        )
    if not (reply["text"] or "").strip():
        raise StructuredOutputError(f"a {kind} needs a non-empty text")
    return PlannerReply(kind=kind, text=_clip(reply["text"]))


def parse_answer(content: str | None) -> ModelAnswer:
    reply = validate(extract_object(content), ANSWER_OUTPUT)
    return ModelAnswer(text=_clip(reply["text"]), claims=reply["claims"])


def _clip(text: str) -> str:
    """The model's words are text from elsewhere: stored and shown inert (its lines kept)."""
    text = inert(text, lines=True)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _short(message: str, limit: int = 200) -> str:
    return message if len(message) <= limit else message[: limit - 3] + "..."
