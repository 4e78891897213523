"""The port of the read models: a tracking recorder that writes each window of changes and
its tracking position in ONE transaction (exactly once), and answers the read side.

A window is the stretch of the log (after, upto] of one projection. It applies only if the
projection's recorded position is `after` at the moment it is written; the adapter claims
the tracking row first in the transaction, so two appliers of overlapping windows cannot
both write: the second finds the position moved and writes nothing (`StaleWindowError`).

Adapters live in `infrastructure` (SQLite, in memory, Postgres); a persistence module that
serves read models exposes `make_read_model_store(factory, prefix)`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from eventsourcing.persistence import IntegrityError, Tracking, TrackingRecorder

from application.read_models.rows import (
    DeadLetter,
    DocumentChange,
    DocumentRow,
    HistoryEntry,
    RunChange,
    RunLink,
    RunRow,
)

# The gateway's runs have a table of their own; every other projection is a domain's, kept
# as keyed records (documents) and histories, each row naming its projection.
RUNS = "runs"


@dataclass(frozen=True)
class Window:
    """The events after position `after` up to `upto` (inclusive), for one tracking name."""

    name: str
    after: int
    upto: int

    @property
    def tracking(self) -> Tracking:
        return Tracking(self.name, self.upto)


@dataclass(frozen=True)
class WindowWrite:
    """One projection's rows for one window: written with its tracking, or not at all."""

    window: Window
    entries: Sequence[HistoryEntry] = ()
    links: Sequence[RunLink] = ()
    runs: Sequence[RunChange] = ()
    documents: Sequence[DocumentChange] = ()


# The writes being gathered in this thread (or task), and the store they are for.
_gathering: ContextVar[tuple[ReadModelStore, list[WindowWrite]] | None] = ContextVar(
    "read_model_writes_gathered", default=None
)


class StaleWindowError(IntegrityError):
    """The window does not start at the recorded position: another applier moved it on."""

    def __init__(self, window: Window, recorded: int | None) -> None:
        super().__init__(
            f"window ({window.after}, {window.upto}] of {window.name} does not start at the "
            f"recorded position {recorded or 0}; nothing was written"
        )
        self.window = window
        self.recorded = recorded


@runtime_checkable
class AsyncDocuments(Protocol):
    """A store that also reads records on the caller's event loop (Postgres, by asyncpg),
    so that a served read waits for the database without holding a worker thread."""

    async def async_documents(
        self,
        projection: str,
        keys: Collection[str] | None = None,
        owners: Collection[str] | None = None,
    ) -> list[DocumentRow]:
        """As `ReadModelStore.documents`."""


class ReadModelStore(TrackingRecorder, ABC):
    """Tables named with a prefix (`rm_` live, `replay_` for a rebuild beside them)."""

    prefix: str

    # What the projections write: each window in a transaction of its own, or, while
    # `gathering`, kept for one `write` of several windows.

    def apply_history(
        self, entries: Sequence[HistoryEntry], links: Sequence[RunLink], window: Window
    ) -> None:
        """Add entries to histories (each a new version of its stream), and set the run of
        entries already written or written here (`links`)."""
        self._apply(WindowWrite(window, entries=entries, links=links))

    def apply_runs(self, changes: Sequence[RunChange], window: Window) -> None:
        self._apply(WindowWrite(window, runs=changes))

    def apply_documents(self, changes: Sequence[DocumentChange], window: Window) -> None:
        """Set or remove records of one declared read model (in the order given: a later
        change of a key wins)."""
        self._apply(WindowWrite(window, documents=changes))

    @contextmanager
    def gathering(self) -> Iterator[list[WindowWrite]]:
        """The windows applied inside (by this thread) are kept in the list it gives, not
        written: the caller then writes them together with `write`."""
        writes: list[WindowWrite] = []
        token = _gathering.set((self, writes))
        try:
            yield writes
        finally:
            _gathering.reset(token)

    def _apply(self, write: WindowWrite) -> None:
        gathered = _gathering.get()
        if gathered is not None and gathered[0] is self:
            gathered[1].append(write)
        else:
            self.write([write])

    @abstractmethod
    def write(self, writes: Sequence[WindowWrite]) -> None:
        """Claim every write's window and write its rows, all in ONE transaction, or raise
        (StaleWindowError when a window does not start at its recorded position) having
        written nothing. The writes are of different projections (one window each)."""

    def positions(self, names: Sequence[str]) -> dict[str, int]:
        """The recorded position of each tracking name (0 where none is)."""
        return {name: self.max_tracking_id(name) or 0 for name in names}

    @abstractmethod
    def record_dead_letter(self, letter: DeadLetter, window: Window) -> None:
        """Keep an event the projection could not apply, and move past it (one transaction)."""

    @abstractmethod
    def dead_letters(self, projection: str | None = None) -> list[DeadLetter]:
        """In log order; of one projection, or of all."""

    @abstractmethod
    def history(
        self, projection: str, stream: str, limit: int, before_version: int | None = None
    ) -> list[HistoryEntry]:
        """A stream's entries newest first (by version), at most `limit`; only those older
        than `before_version` when it is given."""

    @abstractmethod
    def history_entries(self, projection: str) -> list[HistoryEntry]:
        """Every entry of a projection's histories, in log order (for comparisons)."""

    @abstractmethod
    def last_entries(self, projection: str, streams: Collection[str]) -> dict[str, HistoryEntry]:
        """The latest entry (highest version) of each of these streams that has one."""

    @abstractmethod
    def runs(self, run_ids: Collection[str] | None = None) -> list[RunRow]: ...

    @abstractmethod
    def runs_page(
        self, status: str | None, principal: str | None, before: int | None, limit: int
    ) -> list[RunRow]:
        """Newest first (by the position of their proposal), at most `limit`: those with this
        status and of this principal (None: any), proposed before position `before`."""

    @abstractmethod
    def run_ids_starting(self, start: str, principal: str | None, limit: int) -> list[str]:
        """At most `limit` run ids that start with `start` (lower-case hex, dashed as a run
        id is), of this principal (None: any)."""

    @abstractmethod
    def documents(
        self,
        projection: str,
        keys: Collection[str] | None = None,
        owners: Collection[str] | None = None,
    ) -> list[DocumentRow]:
        """The records of a declared read model, by key (code-point order): all of them, or
        those with these keys, of which those owned by one of `owners` or by none (None:
        whoever owns them)."""

    @abstractmethod
    def reset(self, projection: str, tracking_name: str) -> None:
        """Forget a projection's rows (the runs, or its records and history entries), dead
        letters and position: it rebuilds from the start."""

    @abstractmethod
    def take_over(self, projection: str, source_prefix: str, source: str, tracking: str) -> int:
        """Replace this view's rows, dead letters and position of `projection` with those of
        the same projection in the tables of `source_prefix` (tracked as `source`), in one
        transaction; the position taken over."""
