"""The sliding window behind the per-minute caps, as plain arithmetic every store can keep.

A key's window is a row of SLOTS counters, one per SLOT_SECONDS of time, the newest last;
`head` is the number of the newest slot (time // SLOT_SECONDS). The slots span 60.5 s,
so they always hold every admission of the last 60 s: no 60 s ever sees more admissions
than the cap, and a refusal lifts at most one slot (0.5 s) later than an exact log of
timestamps would lift it. The row has a fixed size whatever the cap, so admitting costs
the same at 10 a minute as at 100 000, and expired slots are overwritten in place: the
store holds one row per key and counter, never more.

Infrastructure's Postgres function mirrors this code; the contract tests hold every
store to the same answers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

WINDOW_SECONDS = 60.0
SLOT_SECONDS = 0.5
SLOTS = int(WINDOW_SECONDS / SLOT_SECONDS) + 1  # the slot now filling, and 60 s before it


def slot_of(now: float) -> int:
    return math.floor(now / SLOT_SECONDS)


@dataclass(frozen=True)
class Window:
    head: int
    counts: tuple[int, ...]

    @classmethod
    def empty(cls, now: float) -> Window:
        return cls(slot_of(now), (0,) * SLOTS)

    @classmethod
    def stored(cls, head: int, counts: Sequence[int], now: float) -> Window:
        """A window read back from a store; one of another shape starts empty."""
        if len(counts) != SLOTS:
            return cls.empty(now)
        return cls(head, tuple(counts))

    def admit(self, now: float, cap: int) -> tuple[Window, float | None]:
        """(the window to keep, None) when admitted; (unchanged, seconds to wait) if not.

        A refusal is not counted: only admissions use up the cap."""
        # A clock that steps back counts its admissions in the newest slot.
        now = max(now, self.head * SLOT_SECONDS)
        slot = slot_of(now)
        shift = slot - self.head
        counts = self.counts[shift:] + (0,) * min(shift, SLOTS) if shift else self.counts
        total = sum(counts)
        if total < cap:
            return Window(slot, (*counts[:-1], counts[-1] + 1)), None
        # Refused: wait until enough of the oldest slots have left the window.
        dropped = 0
        for index, count in enumerate(counts, 1):
            dropped += count
            if total - dropped < cap:
                return self, (slot + index) * SLOT_SECONDS - now
        raise AssertionError("a positive cap always frees up")  # cap >= 1
