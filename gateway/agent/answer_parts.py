"""What an answer is made of, and whose each part is.

- `facts`: written by the code from the gateway's outcome and the ledger (status, each
  event's account, amount and counterparty, balances, the program's result).
- `quoted`: text another principal wrote (a memo, an owner's name) or that the code cannot
  vouch for (a string in the program's result, an error quoting values), shown as a quote
  with its `author` and `what` it is, never in the assistant's voice.
- `assistant`: the model's prose, only the sentences the code found supported by the
  outcome and the data. Every other sentence is `withheld`, with the reason, kept for the
  record and never shown as the answer.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

# Who wrote a quoted text, when it is not a record's holder (named by the record's id) or
# staff (`application.telling.STAFF`).
PROGRAM = "the program"  # a string literal of the program's own source
SLUICE = "Sluice"  # the gateway's own message, which may quote the program's values
UNKNOWN = "an unknown author"


class AnswerPart(BaseModel):
    """One part of an answer, and whose it is."""

    # Always read with its author and what it is (null but for a quoted part).
    model_config = ConfigDict(
        frozen=True, extra="forbid", json_schema_serialization_defaults_required=True
    )

    kind: Literal["facts", "quoted", "assistant"] = Field(
        description="facts: written by Sluice's code from the run's outcome and the ledger; "
        "quoted: text another principal wrote (a memo, an owner's name) or that the code "
        "cannot vouch for, with its author; assistant: the model's words that the code found "
        "supported by the outcome and the data."
    )
    text: str
    author: str | None = Field(
        default=None,
        description="For a quoted part: who wrote it (a record's id for its holder, staff, "
        "the program, Sluice, or an unknown author).",
    )
    what: str | None = Field(
        default=None, description="For a quoted part: what it is (memo, owner of ...)."
    )

    def line(self) -> str:
        """The part as one labelled line of plain text."""
        if self.kind == "quoted":
            return f"  {self.what} by {self.author}: “{self.text}”"
        if self.kind == "assistant":
            return f"Agent: {self.text}"
        return self.text


class Withheld(BaseModel):
    """A sentence of the model's reply that the code did not let stand, and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str = Field(description="A sentence of the model's reply; never shown as the answer.")
    reason: str = Field(description="Why the code did not let it stand.")


class Answer(BaseModel):
    """The answer to a decided run (or a planner's answer), made by the code."""

    # `text` is made from the parts: always there when the answer is read.
    model_config = ConfigDict(
        frozen=True, extra="forbid", json_schema_serialization_defaults_required=True
    )

    parts: tuple[AnswerPart, ...] = Field(description="In order; show each with whose it is.")
    text: str = Field(
        default_factory=lambda fields: _lines(fields.get("parts", ())),
        description="All parts as labelled lines, for a client that shows one text.",
    )
    claims: Literal["success", "failure"] | None = Field(
        description="What the model claimed of the run; null for a planner's answer."
    )
    corrected: bool = Field(description="Some of the model's reply was withheld.")
    withheld: tuple[Withheld, ...]
    model_text: str = Field(description="The model's reply as written: for the record only.")

    @property
    def voice(self) -> str:
        """What stands in the assistant's own voice."""
        return " ".join(part.text for part in self.parts if part.kind == "assistant")

    @model_validator(mode="after")
    def _text_is_the_parts(self) -> Answer:
        if self.text != _lines(self.parts):
            raise ValueError("text: must be the parts as labelled lines")
        return self


def _lines(parts: tuple[AnswerPart, ...]) -> str:
    """Every part as a labelled line: for a client that shows one text."""
    return "\n".join(part.line() for part in parts)


def facts(text: str) -> AnswerPart:
    return AnswerPart(kind="facts", text=text)


def quoted(text: str, author: str | None, what: str) -> AnswerPart:
    return AnswerPart(kind="quoted", text=text, author=author or UNKNOWN, what=what)


def assistant(text: str) -> AnswerPart:
    return AnswerPart(kind="assistant", text=text)
