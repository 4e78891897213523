"""Rebuild read models from the log beside the live ones, then prove they are equal."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from application.ledger import Ledger
from application.read_models.service import LIVE, REPLAY, Progress, ReadModels, open_view
from application.read_models.view import PROJECTIONS


@dataclass
class Comparison:
    projection: str
    position: int
    equal: bool | None  # None: could not be compared at one position
    rows: int
    differences: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "projection": self.projection,
            "position": self.position,
            "equal": self.equal,
            "rows": self.rows,
            "differences": self.differences,
        }


class Replay:
    """A rebuild in `replay_` tables, resumable: it goes on from where it stopped."""

    def __init__(self, ledger: Ledger) -> None:
        self.live = ReadModels(ledger, open_view(ledger, LIVE))
        self.rebuilt = ReadModels(ledger, open_view(ledger, REPLAY))

    def run(
        self,
        names: list[str] | None = None,
        *,
        to: int | None = None,
        from_scratch: bool = False,
        progress: Progress | None = None,
    ) -> list[Comparison]:
        names = names or list(PROJECTIONS)
        if from_scratch:
            self.rebuilt.reset(names)
        target = self.live.head() if to is None else min(to, self.live.head())
        self.rebuilt.catch_up(names, to=target, progress=progress)
        return [self._compare(name, target, follow_live=to is None) for name in names]

    def _compare(self, name: str, target: int, *, follow_live: bool) -> Comparison:
        live = self.live.position(name)
        if live < target:
            self.live.catch_up([name], to=target)
        elif live > target and follow_live:
            self.rebuilt.catch_up([name], to=live)
        position = self.rebuilt.position(name)
        if self.live.position(name) != position:
            return Comparison(name, position, None, 0, [
                f"the live model is at {self.live.position(name)}, the rebuilt one at {position}"
            ])  # fmt: skip
        ours, theirs = _rows(self.rebuilt, name), _rows(self.live, name)
        differences = [
            f"rebuilt {a!r} != live {b!r}" for a, b in zip(ours, theirs, strict=False) if a != b
        ]
        if len(ours) != len(theirs):
            differences.append(f"rebuilt has {len(ours)} rows, live has {len(theirs)}")
        return Comparison(name, position, not differences, len(ours), differences[:20])


def _rows(models: ReadModels, name: str) -> list[Any]:
    view = models.view
    if name == "balances":
        return view.balances()
    if name == "statement":
        return view.statement_entries()
    return view.runs()
