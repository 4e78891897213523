"""The read use cases answered from the read models (the query side of CQRS).

Programs read the event store through their unit of work, so that they see their own
writes; a direct read by a client is answered here, from the projections, in the very
shape the use case declares (the served domain's `answers`: `declared.DomainReadModels`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any, TypeVar

from application.read_models.declared import Visible
from application.read_models.routing import ReadRouting
from application.read_models.service import ReadModels
from application.read_models.store import ReadModelStore
from application.use_case import UseCase

T = TypeVar("T")
# How long a read waits for the read models (or a standby) to reach what it must see, by
# default: the one default of SLUICE_READ_WAIT_SECONDS (gateway/settings.py). The projector
# keeps the read models about 0.1 s behind the log: a few seconds is ample, and short
# enough that a client hears why instead of hanging.
WAIT_SECONDS = 5.0


class ReadModelQueries:
    def __init__(
        self,
        read_models: ReadModels,
        *,
        is_fresh: Callable[[], bool],
        standby: ReadModelStore | None = None,
        wait_seconds: float = WAIT_SECONDS,
    ) -> None:
        self.read_models = read_models
        # True while a projector keeps the views current; if not, each read catches up first.
        self.is_fresh = is_fresh
        # Which copy answers: a hot standby's (SLUICE_READ_DATABASE_URL), or the primary's.
        self.routing = ReadRouting(
            read_models, standby, is_fresh=is_fresh, wait_seconds=wait_seconds
        )
        # The read use cases the served domain's read models answer.
        self.declared = read_models.declared
        self._handlers = self.declared.answers

    def handles(self, use_case: type[UseCase[Any]]) -> bool:
        return use_case in self._handlers

    def answer(self, use_case: UseCase[Any], visible: Visible, *, consistent: bool) -> Any:
        """The use case's result, from the views; a DomainError as the use case would raise."""
        handler = self._handlers[type(use_case)]
        return self.read(lambda store: handler(use_case, visible, store), consistent=consistent)

    def read(self, op: Callable[[ReadModelStore], T], *, consistent: bool) -> T:
        """`op` on the read models: with `consistent`, on views holding every event committed
        before the call (caught up first, and on the standby once it has replayed them)."""
        position = None
        if consistent or not self.is_fresh():
            caught_up = self.read_models.catch_up()
            if consistent:
                position = min(c.position for c in caught_up)
        return self.routing.read(op, position=position)

    def answers_async(self, use_case: type[UseCase[Any]], *, consistent: bool) -> bool:
        """Whether `async_answer` can answer it now: a read the domain answers on an event
        loop, from views a projector keeps current, in a store that reads them so."""
        return (
            use_case in self.declared.async_answers
            and not consistent
            and self._reads_async
            and self.is_fresh()
        )

    async def async_answer(self, use_case: UseCase[Any], visible: Visible) -> Any:
        """As `answer`, without blocking the caller's event loop (see `answers_async`)."""
        assert self._reads_async, "answers_async says when this may be called"
        handler = self.declared.async_answers[type(use_case)]
        return await self.routing.aread(lambda store: handler(use_case, visible, store))

    @cached_property
    def _reads_async(self) -> bool:
        # Asked once: a check against a runtime Protocol is too dear for every request.
        stores = [self.read_models.store, self.routing.standby or self.read_models.store]
        return all(self.declared.reads_async(store) for store in stores)
