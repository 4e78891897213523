"""How many sandbox workers a process keeps, and how long a program may wait for one.

These bound the process, not the program: a program's own caps are `ProgramLimits`. Waiting
for a worker never counts against a program's time cap; past the wait the request is
answered "unavailable" (retryable) and the program is not run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from application.settings_error import SettingsError

WORKERS_VARIABLE = "SLUICE_SANDBOX_WORKERS"
WAIT_VARIABLE = "SLUICE_SANDBOX_WAIT_SECONDS"
N = TypeVar("N", int, float)
DEFAULT_WORKERS = 2
# Long enough for a queue of ordinary programs behind a couple of runaways (each stopped
# at the 2 s default time cap); short enough that a client hears "busy" instead of hanging.
DEFAULT_WAIT_SECONDS = 5.0


@dataclass(frozen=True)
class PoolSettings:
    workers: int = DEFAULT_WORKERS
    wait_seconds: float = DEFAULT_WAIT_SECONDS

    def __post_init__(self) -> None:
        whole = isinstance(self.workers, int) and not isinstance(self.workers, bool)
        _check_workers(repr(self.workers), self.workers if whole else None)
        _check_wait(repr(self.wait_seconds), float(self.wait_seconds))


def parse_workers(raw: str) -> int:
    """The value of SLUICE_SANDBOX_WORKERS, or a SettingsError naming it."""
    return _check_workers(repr(raw), _parsed(int, raw))


def parse_wait(raw: str) -> float:
    """The value of SLUICE_SANDBOX_WAIT_SECONDS, or a SettingsError naming it."""
    return _check_wait(repr(raw), _parsed(float, raw))


def _parsed(kind: Callable[[str], N], raw: str) -> N | None:
    try:
        return kind(raw.strip())
    except ValueError:
        return None


def _check_workers(shown: str, workers: int | None) -> int:
    if workers is None or workers < 1:
        raise SettingsError(
            f"{WORKERS_VARIABLE}={shown}: the number of sandbox workers must be a whole "
            "number, at least 1 (e.g. 2)"
        )
    return workers


def _check_wait(shown: str, seconds: float | None) -> float:
    if seconds is None or not math.isfinite(seconds) or seconds <= 0:
        raise SettingsError(
            f"{WAIT_VARIABLE}={shown}: the wait for a sandbox worker must be a positive "
            "number of seconds (e.g. 5 or 0.5)"
        )
    return seconds
