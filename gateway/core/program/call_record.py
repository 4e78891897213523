"""One use-case call a program made, as its preview shows it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CallRecord:
    name: str
    arguments: dict[str, Any]
    result: Any
    line: int
    column: int
    events: int

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "arguments": self.arguments,
            "result": self.result,
            "line": self.line,
            "column": self.column,
            "events": self.events,
        }
