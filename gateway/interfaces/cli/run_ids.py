"""A run's id as a person types it: the whole id, or the start of it that a table shows."""

from __future__ import annotations

import string
from uuid import UUID

from gateway.bootstrap import Sluice


class RunIdError(ValueError):
    """The text names no run, or more than one."""


def resolve_run_id(sluice: Sluice, given: str, noun: str = "run") -> str:
    """The whole id of the run `given` names: itself when it is a whole id, else the one run
    whose id starts with it (as `audit account` shows eight characters of each). `noun` is
    what the refusal calls it: a run, or a proposal."""
    try:
        return str(UUID(given))
    except ValueError:
        pass
    prefix = given.strip().lower().replace("-", "")
    if not prefix or set(prefix) - set(string.hexdigits.lower()):
        raise RunIdError(f"no {noun} {given}: a {noun} id is hexadecimal, as in 3f2a9c1e")
    sluice.read_models.catch_up()  # a run proposed a moment ago is found too
    found = [
        row.run_id
        for row in sluice.read_models.store.runs()
        if row.run_id.replace("-", "").startswith(prefix)
    ]
    if not found:
        raise RunIdError(f"no {noun} {given}: no {noun}'s id starts with {prefix}")
    if len(found) > 1:
        raise RunIdError(
            f"{noun} id {given!r} is ambiguous: {len(found)} {noun}s' ids start with it; "
            "give more of the id"
        )
    return found[0]
