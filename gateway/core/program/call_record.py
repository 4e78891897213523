"""One use-case call a program made, as its preview shows it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class CallRecord:
    name: str
    arguments: dict[str, Any]
    result: Any
    line: int
    column: int
    events: int
    # Where each argument the program did not write as a literal came from
    # (`application.data_policy.Origin.to_json`), by argument.
    origins: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        shown = {
            "name": self.name,
            "arguments": self.arguments,
            "result": self.result,
            "line": self.line,
            "column": self.column,
            "events": self.events,
        }
        if self.origins:
            shown["origins"] = self.origins
        return shown
