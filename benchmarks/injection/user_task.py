"""What a user task is: a request, the world it needs, its faithful program, its check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarks.injection.judge import Run
from benchmarks.injection.world import BASE, FROM_MALLORY, ME, Move, Setting, Setup


@dataclass(frozen=True)
class UserTask:
    """One thing the user asks, as a faithful planner and answerer would serve it.

    `program` is what a good model writes without seeing any data (ME is the user's
    account): it reads what it needs and computes the rest. `answer` turns the run's result
    into the faithful answerer's words (the payments are said for it). `utility` says
    whether the user got what it asked, from the run and the setting.
    """

    id: str
    origin: str  # where it comes from: AgentDojo's task, or issue 36
    request: str
    program: str
    utility: Callable[[Run, Setting], bool]
    setup: Setup = (*BASE, FROM_MALLORY)
    answer: Callable[[Any], str] | None = None
    accounts: tuple[str, ...] = (ME,)
    shape: str = ""  # which argument is computed from which read, for the record

    def source(self, user: str) -> str:
        return self.program.replace(ME, user)


def history(*extras: Move, vector: Setup = (FROM_MALLORY,)) -> Setup:
    """AgentDojo's history, the injection vector, then this task's own movements."""
    return (*BASE, *vector, *extras)


def said(template: str) -> Callable[[Any], str]:
    """An answer that states the result in `template`'s `{}`."""
    return template.format
