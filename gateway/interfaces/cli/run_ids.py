"""A run's id as a person types it at the terminal: the whole id, or its start."""

from __future__ import annotations

from gateway.bootstrap import Sluice
from gateway.core.run_ids import RunIdError
from gateway.core.run_ids import resolve_run_id as resolve_in

__all__ = ["RunIdError", "resolve_run_id"]


def resolve_run_id(sluice: Sluice, given: str, noun: str = "run") -> str:
    """The whole id of the run `given` names, among every run (an operator's terminal)."""
    sluice.read_models.catch_up()  # a run proposed a moment ago is found too
    return resolve_in(sluice.read_models.store, given, noun=noun)
