"""A run's id as a person types it: the whole id, or the start of it that a table shows.

`sluice confirm 3f2a9c1e`, `GET /v1/programs/3f2a9c1e`, the MCP tool `proposal_status` and
`sluice audit run` all take either: an unambiguous start names its one run.
"""

from __future__ import annotations

import string
from uuid import UUID

from application.principals import PrincipalView
from application.read_models.queries import ReadModelQueries
from application.read_models.store import ReadModelStore
from gateway.core.errors import GatewayError
from gateway.core.policy.decisions import may_read_any_run

# Where the dashes of a run id's text fall (8-4-4-4-12 hex digits).
DASHES = (8, 12, 16, 20)
HEX = frozenset(string.hexdigits.lower())


class RunIdError(ValueError):
    """The text names no run, or more than one (`ambiguous`)."""

    def __init__(self, message: str, *, ambiguous: bool = False) -> None:
        super().__init__(message)
        self.ambiguous = ambiguous


def resolve_run_id(
    store: ReadModelStore, given: str, *, principal: str | None = None, noun: str = "run"
) -> str:
    """The whole id of the run `given` names: itself when it is a whole id, else the one run
    (of `principal`, when given) whose id starts with it. `noun` is what the refusal calls
    it: a run, or a proposal. The read models must be current (the caller catches up)."""
    try:
        return str(UUID(given))
    except ValueError:
        pass
    digits = given.strip().lower().replace("-", "")
    if not digits or set(digits) - HEX or len(digits) > 32:
        shown = given if given.isprintable() and len(given) <= 40 else repr(given[:40])
        raise RunIdError(f"no {noun} {shown}: a {noun} id is hexadecimal, as in 3f2a9c1e")
    found = store.run_ids_starting(dashed(digits), principal, 2)
    if not found:
        raise RunIdError(f"no {noun} {given}: no {noun}'s id starts with {digits}")
    if len(found) > 1:
        raise RunIdError(
            f"{noun} id {given!r} is ambiguous: several {noun}s' ids start with it; give more "
            "of the id",
            ambiguous=True,
        )
    return found[0]


def dashed(digits: str) -> str:
    """Hex digits as the start of a run id's text: `3f2a9c1e4b` is `3f2a9c1e-4b`."""
    parts, last = [], 0
    for cut in DASHES:
        if len(digits) <= cut:
            break
        parts.append(digits[last:cut])
        last = cut
    parts.append(digits[last:])
    return "-".join(parts)


def run_id_for(
    queries: ReadModelQueries | None, principal: PrincipalView, given: str, noun: str = "run"
) -> str:
    """The whole id of the run `given` names: itself, or the one run this principal may read
    whose id starts with it (GatewayError not-found when none does, invalid-request when
    several do)."""
    try:
        return str(UUID(given))
    except ValueError:
        pass
    if queries is None:  # no read models to search: only whole ids
        raise GatewayError("not-found", f"no {noun} {given}: give the whole id")
    queries.read_models.catch_up()  # a run proposed a moment ago is found too
    owner = None if may_read_any_run(principal) else principal.name
    try:
        return resolve_run_id(queries.read_models.store, given, principal=owner, noun=noun)
    except RunIdError as error:
        raise GatewayError(
            "invalid-request" if error.ambiguous else "not-found", str(error)
        ) from None
