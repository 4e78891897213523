"""What a program did, as the CLI's --json and the HTTP API report it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["committed", "failed", "declined"]


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


@dataclass(frozen=True)
class Outcome:
    status: Status
    events: list[dict[str, Any]] = field(default_factory=list)
    result: Any = None
    error: str | None = None

    @property
    def changed(self) -> Literal["nothing"] | int:
        if self.status != "committed" or not self.events:
            return "nothing"
        return len(self.events)

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "changed": self.changed,
            "events": self.events,
            "result": self.result,
            "error": self.error,
        }
