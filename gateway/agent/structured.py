"""The shapes the models must reply in, and how a reply is read and checked.

The schemas are strict-mode compatible (every property required, unused ones null, no
additional properties): a provider with json_schema support enforces them while decoding.
Whatever the provider claims, the reply is parsed and validated here again; a provider
without json_schema gets the schema in its prompt and its text is cut down to the object.
A key left out whose value may be null reads as null; a reply whose parts contradict each
other (a question that also holds a program) is refused like one off its schema.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

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


SHEETS: Final = "sheets"
PROGRAM: Final = "program"
QUESTION: Final = "question"
ANSWER: Final = "answer"
KINDS = [PROGRAM, QUESTION, ANSWER]


def planner_output(use_cases: Sequence[str] | None = (), *, may_ask: bool = True) -> OutputSchema:
    """The planner's reply: `{"reply": ...}`, one object of one kind, with that kind's keys.

    One branch per kind, each with only the keys it uses: a model that picks "program" has
    no `text` to fill and a question no `source`, so a reply cannot contradict itself, and a
    server that enforces the schema (llama.cpp) writes no key for nothing. The wrapper is
    there because strict json_schema wants an object at the root, not a choice.

    With `use_cases`, it may ask for their sheets (kind sheets): a reply like the others, not
    a tool call, since a server that enforces the schema from the first token could never
    emit one. `None`: the planner must reply now, and no branch asks again. An empty sequence
    allows any names. `may_ask=False` (after a refusal for permissions) offers no question:
    the planner then writes a program or answers.
    """
    branches = []
    if use_cases is not None:
        name: dict[str, Any] = {"type": "string"}
        if use_cases:
            name["enum"] = list(use_cases)
        names = {"type": "array", "items": name, "description": "The use cases to read."}
        branches.append(_branch(SHEETS, names=names))
    language = {"type": "string", "enum": ["python", "plan"], "description": _LANGUAGE}
    branches.append(
        _branch(
            PROGRAM,
            language=language,
            explanation={"type": "string", "description": "What it does, in one line."},
            source={"type": "string", "description": "The program's text (a plan as JSON)."},
        )
    )
    if may_ask:
        branches.append(_branch(QUESTION, text={"type": "string", "description": _QUESTION}))
    branches.append(_branch(ANSWER, text={"type": "string", "description": _ANSWER}))
    schema = {
        "type": "object",
        "additionalProperties": False,
        "required": ["reply"],
        "properties": {"reply": {"anyOf": branches}},
    }
    return OutputSchema("sluice_planner_reply", schema)


_LANGUAGE = "python for a Python program, plan for a JSON plan."
_QUESTION = "One short question to the user, when the request is ambiguous."
_ANSWER = "A reply that needs no data, or why the request cannot be done."


def _branch(kind: str, **properties: dict[str, Any]) -> dict[str, Any]:
    keys = {"kind": {"type": "string", "enum": [kind]}} | properties
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(keys),
        "properties": keys,
    }


def _reading() -> OutputSchema:
    """What is read: any kind, every key, those a kind does not use null (or left out).

    Lenient on purpose: a provider that enforced `planner_output` sends one branch; a model
    reading the schema from its prompt may send the reply bare, or with every key.
    """
    text = _nullable({"type": "string"})
    properties: dict[str, Any] = {
        "kind": {"type": "string", "enum": [SHEETS, *KINDS]},
        "names": _nullable({"type": "array", "items": {"type": "string"}}),
        "language": _nullable({"type": "string", "enum": ["python", "plan"]}),
        "source": text,
        "explanation": text,
        "text": text,
    }
    schema = {
        "type": "object",
        "additionalProperties": False,
        "required": list(properties),
        "properties": properties,
    }
    return OutputSchema("sluice_planner_reading", schema)


# Any reply the planner may give, sheets included, whatever the use cases: what is offered.
PLANNER_OUTPUT = planner_output()
PLANNER_READING = _reading()


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
    kind: Literal["sheets", "program", "question", "answer"]
    text: str | None = None
    language: Literal["python", "plan"] | None = None
    source: str | None = None
    explanation: str | None = None
    names: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The brief form: `{kind, language, explanation, source}`, `{kind, names}` or
        `{kind, text}`."""
        if self.kind == PROGRAM:
            return {
                "kind": PROGRAM,
                "language": self.language,
                "explanation": self.explanation,
                "source": self.source,
            }
        if self.kind == SHEETS:
            return {"kind": SHEETS, "names": list(self.names)}
        return {"kind": self.kind, "text": self.text}

    def written(self) -> str:
        """The reply as the planner writes it (`{"reply": ...}`): its history and examples."""
        return written(self.to_json())


def written(reply: dict[str, Any]) -> str:
    return json.dumps({"reply": reply}, ensure_ascii=False)


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
    """The reply checked against its schema; a key left out whose value may be null is null.

    A provider that enforces the schema writes every key; a model reading the schema from
    its prompt often leaves out the ones it has nothing for, and means null.
    """
    if isinstance(value, dict):
        value = {**_nulls(schema.schema), **value}
    validator = jsonschema.Draft202012Validator(schema.schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is not None:
        where = ".".join(str(part) for part in error.absolute_path)
        raise StructuredOutputError(f"{where + ': ' if where else ''}{_short(error.message)}")
    assert isinstance(value, dict)
    return value


def _nulls(schema: dict[str, Any]) -> dict[str, None]:
    nullable = (
        name
        for name, kind in schema.get("properties", {}).items()
        if {"type": "null"} in kind.get("anyOf", [])
    )
    return dict.fromkeys(nullable)


def parse_planner_reply(
    content: str | None, *, may_read_sheets: bool = True, may_ask: bool = True
) -> PlannerReply:
    """The reply, if it is one reply of one kind.

    A program is the one part that must never be dropped unseen: a question or an answer
    that also holds one contradicts itself. A request for sheets may carry a draft: it is
    set aside while the sheets are read, and taken as the program when no sheets can be.
    Other parts a kind does not use (the names of the sheets a program was written from, a
    remark beside it) are left aside: a program is checked, previewed and confirmed by the
    user whatever it says.
    """
    reply = validate(_unwrapped(extract_object(content)), PLANNER_READING)
    kind = reply["kind"]
    drafted = bool((reply["source"] or "").strip())
    if kind == SHEETS and drafted and not (may_read_sheets and reply["names"]):
        # A draft beside a request for sheets that cannot be served is the reply's program.
        kind = PROGRAM
    if kind not in (PROGRAM, SHEETS) and drafted:
        raise StructuredOutputError(
            f"the reply is of kind {kind} but also holds a program (source); a reply is of "
            "one kind: give source null, or give kind program"
        )
    if kind == SHEETS:
        # A draft beside a request for sheets is set aside: the sheets come back and the
        # program is written from them (small models often send both at once).
        if not may_read_sheets:
            raise StructuredOutputError(
                "no more sheets can be read for this request: reply with a program, "
                "a question or an answer"
            )
        if not reply["names"]:
            raise StructuredOutputError("sheets need the names of the use cases to read")
        return PlannerReply(kind=SHEETS, names=tuple(dict.fromkeys(reply["names"])))
    if kind == PROGRAM:
        if not reply["language"] or not (reply["source"] or "").strip():
            raise StructuredOutputError("a program needs its language and a non-empty source")
        if len(reply["source"]) > MAX_SOURCE:
            raise StructuredOutputError(f"source: longer than {MAX_SOURCE} characters")
        return PlannerReply(
            kind=PROGRAM,
            language=reply["language"],
            source=reply["source"],
            explanation=_clip(reply["explanation"] or ""),
        )
    if kind == QUESTION and not may_ask:
        raise StructuredOutputError(
            "no question now: the request was refused for permissions; reply with a program "
            "the principal may run, or an answer saying what cannot be done"
        )
    if not (reply["text"] or "").strip():
        raise StructuredOutputError(f"a {kind} needs a non-empty text")
    return PlannerReply(kind=kind, text=_clip(reply["text"]))


def _unwrapped(value: Any) -> Any:
    """`{"reply": {...}}` as the schema asks, or the reply itself as some models send it."""
    if isinstance(value, dict) and set(value) == {"reply"} and isinstance(value["reply"], dict):
        return value["reply"]
    return value


def parse_answer(content: str | None) -> ModelAnswer:
    reply = validate(extract_object(content), ANSWER_OUTPUT)
    return ModelAnswer(text=_clip(reply["text"]), claims=reply["claims"])


def _clip(text: str) -> str:
    """The model's words are text from elsewhere: stored and shown inert (its lines kept)."""
    text = inert(text, lines=True)
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def _short(message: str, limit: int = 200) -> str:
    return message if len(message) <= limit else message[: limit - 3] + "..."
