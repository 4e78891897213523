"""What a domain declares of its read models (`Domain.read_models`): the projections that
keep them (beside the gateway's runs), and the read use cases they answer.

`answers` maps a read use case to its answer from the read models, in the very shape the
use case declares (a DomainError as it would raise): (the use case, the owned ids the
principal may read or None for all, the store). `async_answers` are the same, on the
caller's event loop, for stores of which `reads_async` says they can (Postgres by asyncpg).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from application.read_models.projection import LedgerProjection
from application.read_models.store import ReadModelStore

if TYPE_CHECKING:
    from application.use_case import UseCase

Visible = frozenset[str] | None
Answer = Callable[[Any, Visible, ReadModelStore], Any]
AsyncAnswer = Callable[[Any, Visible, ReadModelStore], Awaitable[Any]]


def _never(_: ReadModelStore) -> bool:
    return False


@dataclass(frozen=True)
class DomainReadModels:
    projections: tuple[type[LedgerProjection], ...] = ()
    answers: Mapping[type[UseCase[Any]], Answer] = field(default_factory=dict)
    async_answers: Mapping[type[UseCase[Any]], AsyncAnswer] = field(default_factory=dict)
    reads_async: Callable[[ReadModelStore], bool] = _never


# A domain that declares none: the gateway's runs only, every read answered by its use case.
NO_READ_MODELS = DomainReadModels()
