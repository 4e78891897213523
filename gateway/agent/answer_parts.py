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

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

# Who wrote a quoted text, when it is not an account's holder (named by the account id).
STAFF = "staff"  # deposits and openings are staff's only
PROGRAM = "the program"  # a string literal of the program's own source
SLUICE = "Sluice"  # the gateway's own message, which may quote the program's values
UNKNOWN = "an unknown author"


class AnswerPart(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["facts", "quoted", "assistant"]
    text: str
    author: str | None = None  # quoted: who wrote it (an account id, staff, ...)
    what: str | None = None  # quoted: what it is (memo, owner of mallory, result, error)

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

    text: str
    reason: str


class Answer(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    parts: tuple[AnswerPart, ...]
    claims: Literal["success", "failure"] | None  # the model's own claim; None for a planner
    corrected: bool  # something the model wrote was withheld
    withheld: tuple[Withheld, ...]
    model_text: str  # the model's reply as it wrote it: for the record, not to be shown

    @property
    def voice(self) -> str:
        """What stands in the assistant's own voice."""
        return " ".join(part.text for part in self.parts if part.kind == "assistant")

    def text(self) -> str:
        """Every part as a labelled line: for a client that shows one text."""
        return "\n".join(part.line() for part in self.parts)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json") | {"text": self.text()}


def facts(text: str) -> AnswerPart:
    return AnswerPart(kind="facts", text=text)


def quoted(text: str, author: str | None, what: str) -> AnswerPart:
    return AnswerPart(kind="quoted", text=text, author=author or UNKNOWN, what=what)


def assistant(text: str) -> AnswerPart:
    return AnswerPart(kind="assistant", text=text)
