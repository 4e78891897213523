"""Where a preview's non-literal arguments came from, as one line each for a person to read
before confirming: the same words in the terminal, the MCP confirmation and the console.

An argument taken from text a party wrote (a memo, a name) is marked as such: the person
confirms knowing that someone else's words set it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from application.results import OriginRecord, Preview


@dataclass(frozen=True)
class OriginLine:
    """One argument of one call: what gave its value, what chose it, whose text set it."""

    call: str
    line: int
    argument: str
    value: Any
    given: str  # what gave the value; "" when the program wrote it (data only chose it)
    chosen: str  # what chose it (a condition, a loop over data); "" when nothing did
    text_by: str  # who wrote the text that set it; "" when no text did

    def sentence(self) -> str:
        """`transfer (line 3) payee: from statement (line 1) counterparty, a fact`."""
        parts = [f"from {self.given}" if self.given else "written in the program"]
        if self.chosen:
            parts.append(f"chosen by {self.chosen}")
        head = f"{self.call} (line {self.line}) {self.argument}: "
        warning = f" (TEXT WRITTEN BY {self.text_by.upper()})" if self.text_by else ""
        return head + "; ".join(parts) + warning


def origin_lines(preview: Preview) -> list[OriginLine]:
    """A line for each argument a call of the preview did not get as a literal."""
    found = []
    for call in preview.calls:
        for argument, origins in call.origins.items():
            given = [o for o in origins if not o.chosen]
            chosen = [o for o in origins if o.chosen]
            writers = sorted({writer for o in given if o.label != "fact" for writer in _writers(o)})
            found.append(
                OriginLine(
                    call=call.name,
                    line=call.line,
                    argument=argument,
                    value=call.arguments.get(argument),
                    given=", ".join(_described(o) for o in given),
                    chosen=", ".join(_described(o) for o in chosen),
                    text_by=" or ".join(writers),
                )
            )
    return found


def _writers(origin: OriginRecord) -> list[str]:
    if origin.label == "unknown" or not origin.authors:
        return ["an unknown author"]
    return list(origin.authors)


def _described(origin: OriginRecord) -> str:
    if origin.label == "unknown":
        return "a value Sluice cannot trace"
    field = f" {origin.field}" if origin.field else ""
    kind = "a fact" if origin.label == "fact" else "text"
    return f"{origin.call} (line {origin.line}){field}, {kind}"
