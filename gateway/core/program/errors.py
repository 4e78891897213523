"""Why a program was refused, and where in its text; a call refused, before its place is known."""

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


class CallRefusedError(ProgramError):
    """A use-case call refused (by the policy, a cap, the use case itself), its place not
    yet known: raised where the call is answered. Inside a program the sandbox stops the
    program there and gives the refusal its place (`at`); a direct call's refusal is
    recorded and answered by the facade. Never seen past them.

    `raw` is the message as the host wrote it, before it was made printable and bounded:
    what the runner withholds computed values from (`gateway.core.program.withheld`)."""

    def __init__(
        self, message: str, stage: Stage = "refused", *, refusal: DomainError | None = None
    ) -> None:
        super().__init__(stage, message, refusal=refusal)
        self.raw = message

    @classmethod
    def refusing(cls, use_case: str, refusal: DomainError) -> CallRefusedError:
        """The use case refused: `transfer: no account dan`, its DomainError kept."""
        return cls(f"{use_case}: {refusal}", refusal=refusal)

    def at(self, line: int, column: int) -> ProgramError:
        """The program's refusal, stopped at this call."""
        return ProgramError(self.stage, self.raw, line, column, refusal=self.refusal)


def position_of(source: str, byte_offset: int) -> tuple[int, int]:
    """1-based line and character column of a UTF-8 byte offset (the sandbox counts bytes)."""
    before = source.encode()[:byte_offset].decode(errors="ignore")
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    return line, column
