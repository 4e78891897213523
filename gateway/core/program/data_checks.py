"""At each call a program makes: where its arguments came from, and what the policies of its
guarded arguments say of the values the program actually computed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from application.data_policy import (
    ArgumentOrigins,
    ArgumentPolicy,
    CallProvenance,
    Decision,
    Origin,
    PolicyCall,
)
from application.principals import PrincipalView
from application.unit_of_work import UnitOfWork
from application.use_case import UseCase
from gateway.core.program.origins import resolve
from gateway.core.program.static_check import LiteralCall, ProgramShape

# Who a program runs as when no principal guards it (tests, benchmarks): owns nothing.
NOBODY = PrincipalView(name="", role="admin", owns=frozenset())
_ANYTHING = ArgumentOrigins((Origin("", 0, 0, "", "unknown"),))


def provenance_of(
    written: LiteralCall | None,
    shape: ProgramShape,
    answers: Mapping[tuple[int, int], Sequence[Any]],
    arguments: Mapping[str, Any],
) -> CallProvenance:
    """Each non-literal argument's origins, with the writers of the text the calls it came
    from answered. A call the check did not see (none should be) comes from anything."""
    if written is None:
        return CallProvenance({name: _ANYTHING for name in arguments})
    return CallProvenance(
        {
            name: resolve(found, shape.sites, answers, arguments.get(name))
            for name, found in written.sources.items()
            if found
        }
    )


def check_data(
    use_case: UseCase[Any],
    provenance: CallProvenance,
    principal: PrincipalView | None,
    uow: UnitOfWork,
) -> Decision:
    """Each policy that guards an argument of the call, asked once: the first refusal, or
    all that they grant."""
    guarded = type(use_case).guarded
    if not guarded:
        return Decision()
    by_policy: dict[int, tuple[ArgumentPolicy, list[str]]] = {}
    for argument, policy in guarded.items():
        by_policy.setdefault(id(policy), (policy, []))[1].append(argument)
    call = PolicyCall(use_case, provenance, principal or NOBODY, uow)
    grants: frozenset[str] = frozenset()
    for policy, arguments in by_policy.values():
        decision = policy.at_call(call, arguments)
        if decision.refusal is not None:
            return decision
        grants |= decision.grants
    return Decision(grants=grants)
