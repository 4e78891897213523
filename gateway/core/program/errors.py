"""Why a program was refused, and where in its text."""

from __future__ import annotations

from typing import Literal

from application.inert_text import clip
from domain.errors import DomainError
from gateway.core.errors import MAX_ERROR_BYTES

Stage = Literal[
    "syntax", "check", "type", "denied", "limit", "refused", "runtime", "sandbox", "conflict"
]


class ProgramError(Exception):
    """One clear line: what went wrong, then `(line L, column C)` when there is a place.

    The message may quote the program's own text (an exception it raised, a value a call
    refused): it is made printable and bounded here, so it is stored and shown that way.
    `refusal` is the domain's own error when a use case refused the call; `exception` the
    type of the program's own exception when the message is that exception's, which may
    quote any value the program held (`gateway.core.program.withheld`)."""

    def __init__(
        self,
        stage: Stage,
        message: str,
        line: int | None = None,
        column: int | None = None,
        *,
        step: int | None = None,
        refusal: DomainError | None = None,
        exception: str | None = None,
    ) -> None:
        message = clip(message, MAX_ERROR_BYTES)
        super().__init__(message)
        self.stage = stage
        self.message = message
        self.line = line
        self.column = column
        self.step = step  # for JSON plans, whose places are steps
        self.refusal = refusal
        self.exception = exception

    def __str__(self) -> str:
        if self.step is not None:
            return f"{self.message} (step {self.step})"
        if self.line is None:
            return self.message
        return f"{self.message} (line {self.line}, column {self.column})"


def position_of(source: str, byte_offset: int) -> tuple[int, int]:
    """1-based line and character column of a UTF-8 byte offset (the sandbox counts bytes)."""
    before = source.encode()[:byte_offset].decode(errors="ignore")
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    return line, column
