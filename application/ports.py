"""Output ports: a use case hands its result to `success` or its refusal to `failure`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)


class OutputPort(Protocol[T_contra]):
    def success(self, value: T_contra) -> None: ...

    def failure(self, error: str) -> None: ...


@dataclass(frozen=True)
class CallbackPort(Generic[T]):
    """The one reusable port: a callback per outcome, as the CLI, HTTP, tests and agent plug in."""

    on_success: Callable[[T], None]
    on_failure: Callable[[str], None]

    def success(self, value: T) -> None:
        self.on_success(value)

    def failure(self, error: str) -> None:
        self.on_failure(error)
