"""The one way a use case runs: on a unit of work, its events collected, a refusal raised as is.

Direct calls, the calls a program makes, JSON plan steps and the output port of the seed
all run a use case here. A refusal is the DomainError the domain raised, with its class:
the gateway names it at the edge (`gateway.core.errors.refusal_name`), nothing turns it into
text on the way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from eventsourcing.domain import AggregateEvent

from application.data_policy import DIRECT, CallProvenance

if TYPE_CHECKING:
    from application.unit_of_work import UnitOfWork
    from application.use_case import UseCase

Result = TypeVar("Result")


@dataclass(frozen=True)
class Executed(Generic[Result]):
    """What one use case did: its result and the events it raised, in time order."""

    value: Result
    events: Sequence[AggregateEvent]


def execute(
    use_case: UseCase[Result], uow: UnitOfWork, provenance: CallProvenance = DIRECT
) -> Executed[Result]:
    """Perform the use case on the unit of work and collect the events it raised.

    `provenance` says where a program's call took its arguments from (a direct call's are
    all its caller's own): the use case reads it as `uow.provenance` while it performs.
    A refusal propagates as the DomainError the domain raised; nothing is collected then."""
    uow.provenance = provenance
    try:
        value = use_case.perform(uow)
    finally:
        uow.provenance = DIRECT
    return Executed(value=value, events=uow.collect())
