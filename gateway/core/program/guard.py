"""The seam where policy meets a running program: checked before it runs and at each call."""

from __future__ import annotations

from typing import Any, Protocol

from application.principals import PrincipalView
from application.use_case import UseCase
from gateway.core.program.static_check import ProgramShape


class ProgramGuard(Protocol):
    @property
    def principal(self) -> PrincipalView | None:
        """Who the program runs as: what a policy on data checks against (None: nobody)."""

    def check_shape(self, shape: ProgramShape) -> None:
        """Raise a ProgramError if the program, as written, may not run."""

    def check_call(self, use_case: UseCase[Any]) -> None:
        """Raise a CallRefusedError if this call, with these arguments, may not happen."""

    def usage(self) -> dict[str, Any]:
        """What the program has used of its caps so far."""


class OpenGuard:
    """No principal: every use case, no caps beyond the runner's limits."""

    @property
    def principal(self) -> PrincipalView | None:
        return None

    def check_shape(self, shape: ProgramShape) -> None:
        return None

    def check_call(self, use_case: UseCase[Any]) -> None:
        return None

    def usage(self) -> dict[str, Any]:
        return {}
