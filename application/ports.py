"""Output ports: a use case hands its result to `success` or its refusal to `failure`.

The refusal is the DomainError itself, so a port can tell `no account dan` (an
AccountNotFoundError) from `alice has only 60.00` (an InsufficientFundsError).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from domain.errors import DomainError

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)


class OutputPort(Protocol[T_contra]):
    def success(self, value: T_contra) -> None: ...

    def failure(self, refusal: DomainError) -> None: ...


@dataclass(frozen=True)
class CallbackPort(Generic[T]):
    """The one reusable port: a callback per outcome, as the seed's tests plug in."""

    on_success: Callable[[T], None]
    on_failure: Callable[[DomainError], None]

    def success(self, value: T) -> None:
        self.on_success(value)

    def failure(self, refusal: DomainError) -> None:
        self.on_failure(refusal)
