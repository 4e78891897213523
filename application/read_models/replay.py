"""Rebuild read models from the log beside the live ones, prove they are equal, and on
request swap a rebuild in for a live model that is wrong."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from application.ledger import Ledger
from application.read_models.declared import NO_READ_MODELS, DomainReadModels
from application.read_models.rows import DeadLetter
from application.read_models.service import (
    LIVE,
    REPLAY,
    Progress,
    ReadModels,
    open_read_model_store,
)

Step = Callable[[str], None]  # a phase begins: what it does


@dataclass
class Comparison:
    projection: str
    position: int
    equal: bool | None  # None: could not be compared at one position
    rows: int
    differences: list[str] = field(default_factory=list)
    live_dead_letters: list[DeadLetter] = field(default_factory=list)
    rebuilt_dead_letters: list[DeadLetter] = field(default_factory=list)
    swapped: bool = False

    @property
    def sound(self) -> bool:
        """Equal to its rebuild, and no event set aside."""
        return bool(self.equal) and not self.live_dead_letters

    def to_json(self) -> dict[str, Any]:
        return {
            "projection": self.projection,
            "position": self.position,
            "equal": self.equal,
            "rows": self.rows,
            "differences": self.differences,
            "swapped": self.swapped,
            "dead_letters": {
                "live": [_letter(x) for x in self.live_dead_letters],
                "rebuilt": [_letter(x) for x in self.rebuilt_dead_letters],
            },
        }


class Replay:
    """A rebuild in `replay_` tables, resumable: it goes on from where it stopped.

    A rebuild that set events aside starts again from the first event, so that each run
    retries every dead letter with the code of the day."""

    def __init__(self, ledger: Ledger, declared: DomainReadModels = NO_READ_MODELS) -> None:
        """`declared`: the served domain's read models, beside the gateway's runs."""
        live, rebuilt = open_read_model_store(ledger, LIVE), open_read_model_store(ledger, REPLAY)
        self.live = ReadModels(ledger, live, declared=declared)
        self.rebuilt = ReadModels(ledger, rebuilt, declared=declared)
        self._progress: Progress | None = None
        self._step: Step | None = None

    def run(
        self,
        names: list[str] | None = None,
        *,
        to: int | None = None,
        from_scratch: bool = False,
        swap: bool = False,
        progress: Progress | None = None,
        step: Step | None = None,
    ) -> list[Comparison]:
        """`progress` is told of each window applied (the rebuild's, then the live model's
        when it is behind, named "live NAME"); `step` of each phase that has no position
        to count (the comparison of the rows)."""
        names = names or list(self.live.names)
        for name in names:
            self.rebuilt.projection(name)
        again = [n for n in names if from_scratch or self.rebuilt.dead_letters(n)]
        if again:
            self.rebuilt.reset(again)
        target = self.live.head() if to is None else min(to, self.live.head())
        self.rebuilt.catch_up(names, to=target, progress=progress)
        self._progress, self._step = progress, step
        compared = [self._compare(name, target, follow_live=to is None) for name in names]
        if not swap:
            return compared
        return [self._swap(comparison) for comparison in compared]

    def _swap(self, before: Comparison) -> Comparison:
        """Install the rebuild as the live model, then bring it to the log's head."""
        name = before.projection
        self.live.take_over(name, self.rebuilt)
        head = self.live.head()
        self.live.catch_up([name], to=head)
        after = self._compare(name, head, follow_live=True)
        after.swapped = True
        if before.differences:
            after.differences = [f"before the swap: {d}" for d in before.differences]
        return after

    def _compare(self, name: str, target: int, *, follow_live: bool) -> Comparison:
        live = self.live.position(name)
        progress = self._progress
        if live < target:
            live_progress = None if progress is None else _renamed(progress, f"live {name}")
            self.live.catch_up([name], to=target, progress=live_progress)
        elif live > target and follow_live:
            self.rebuilt.catch_up([name], to=live, progress=progress)
        position = self.rebuilt.position(name)
        letters = self.live.dead_letters(name), self.rebuilt.dead_letters(name)
        if self.live.position(name) != position:
            return Comparison(name, position, None, 0, [
                f"the live model is at {self.live.position(name)}, the rebuilt one at {position}"
            ], *letters)  # fmt: skip
        if self._step:
            self._step(f"comparing {name} with the live model")
        ours, theirs = _rows(self.rebuilt, name), _rows(self.live, name)
        differences = [
            f"rebuilt {a!r} != live {b!r}" for a, b in zip(ours, theirs, strict=False) if a != b
        ]
        if len(ours) != len(theirs):
            differences.append(f"rebuilt has {len(ours)} rows, live has {len(theirs)}")
        return Comparison(name, position, not differences, len(ours), differences[:20], *letters)


def _renamed(progress: Progress, name: str) -> Progress:
    return lambda _, position, target, events: progress(name, position, target, events)


def _rows(models: ReadModels, name: str) -> list[Any]:
    return models.projection(name).rows()


def _letter(letter: DeadLetter) -> dict[str, Any]:
    return {"position": letter.position, "error": letter.error, "recorded_at": letter.recorded_at}
