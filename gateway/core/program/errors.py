"""Why a program was refused, and where in its text."""

from __future__ import annotations

from typing import Literal

from domain.errors import DomainError
from gateway.core.errors import GatewayError, stage_kind

Stage = Literal[
    "syntax", "check", "type", "denied", "limit", "refused", "runtime", "sandbox", "conflict"
]


class ProgramError(GatewayError):
    """A program refused: one clear line, what went wrong, then `(line L, column C)` (or
    `(step N)` for a plan) when there is a place; its kind is its stage's (`stage_kind`).

    The message may quote the program's own text (an exception it raised, a value a call
    refused): it is made printable and bounded (as every GatewayError's), so it is stored
    and shown that way. `refusal` is the domain's own error when a use case refused the
    call; `exception` the type of the program's own exception when the message is that
    exception's, which may quote any value the program held
    (`gateway.core.program.withheld`). Proposals name the run that recorded it."""

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
        # A plan's places are steps (`step`), a Python program's lines and columns.
        super().__init__(
            stage_kind(stage), message, line=line, column=column, step=step, refusal=refusal
        )
        self.stage = stage
        self.exception = exception


def position_of(source: str, byte_offset: int) -> tuple[int, int]:
    """1-based line and character column of a UTF-8 byte offset (the sandbox counts bytes)."""
    before = source.encode()[:byte_offset].decode(errors="ignore")
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    return line, column
