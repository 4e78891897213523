"""Which refusals go back to the planner for its one repair, and how they are worded.

A refusal may be quoted to the planner only if the program was refused before it read
anything: its checks (syntax, types against the stubs, the plan schema, permissions, size)
or a call refused before any use case ran. Such an error is made of the program's own text.
Once a use case has run, an error may quote what it returned (`alice has only 60.00`):
that run has failed, and only the answerer sees why.
"""

from __future__ import annotations

from typing import Any

from application.principals import PrincipalView
from gateway.agent.prompts import REPAIR, REPAIR_FORBIDDEN
from gateway.agent.provider import Message
from gateway.agent.structured import PlannerReply
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway

REPAIRABLE = frozenset({"invalid-program", "forbidden", "cap-exceeded", "refused"})
# An attempt of this stage is a reply that could not be used; others are refused programs.
REPLY = "reply"


def check_errors(
    gateway: Gateway, principal: PrincipalView, refusal: GatewayError
) -> list[str] | None:
    """The errors to quote for a repair, or None when the refusal is not the checks'."""
    if refusal.kind == "invalid-program" and refusal.run_id is None:
        return [str(refusal)]  # its text, refused before any run: it names no data
    if refusal.kind not in REPAIRABLE or refusal.run_id is None:
        return None
    preview = gateway.proposal(principal, refusal.run_id).preview
    # The guard counts a call once it passed its checks, just before the use case runs; a
    # plan refused by its schema never reached the guard, so it has no count at all.
    used = preview.caps.get("calls", {}).get("used", 0)
    if used != 0 or preview.calls or preview.events:
        return None
    return [str(refusal)]


def attempt(reply: PlannerReply, run_id: str | None, errors: list[str]) -> dict[str, Any]:
    return {"run_id": run_id, "language": reply.language, "source": reply.source, "errors": errors}


def unusable_attempts(errors: list[str]) -> list[dict[str, Any]]:
    """The planner's replies that could not be used, as attempts of a refused turn.

    The last one's error is what the user reads: what went wrong and what to do.
    """
    said = [f"the model's reply could not be used: {error}" for error in errors]
    said[-1] += (
        ". The model gave no usable reply twice; nothing was changed: ask again, "
        "perhaps in other words"
    )
    return [
        {"stage": REPLY, "run_id": None, "language": None, "source": None, "errors": [error]}
        for error in said
    ]


def repair_request(errors: list[str], *, forbidden: bool = False) -> Message:
    """The one repair's request; `forbidden`: refused for permissions, so no question helps."""
    prompt = REPAIR_FORBIDDEN if forbidden else REPAIR
    return {
        "role": "user",
        "content": prompt.format(errors="\n".join(f"- {error}" for error in errors)),
    }
