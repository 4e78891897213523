"""How turns and conversations read to callers (HTTP, CLI): JSON-ready dicts.

A program turn carries the gateway's proposal and its authoritative outcome (status,
changed, events, result, error) beside the answerer's reply, which can never alter them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from domain.conversation import PROGRAM, REFUSED, Conversation, Turn


def effective_outcome(proposal: dict[str, Any], now: datetime) -> dict[str, Any]:
    """The run's outcome; a pending proposal past its expiry is expired, nothing written."""
    outcome = dict(proposal["outcome"])
    expires_at = str(proposal["expires_at"])
    if proposal["status"] == "pending" and now >= datetime.fromisoformat(expires_at):
        outcome |= {
            "status": "expired",
            "changed": "nothing",
            "events": [],
            "result": None,
            "error": f"proposal {proposal['id']} expired at {expires_at} unconfirmed; "
            "nothing was written",
        }
    return outcome


def turn_json(
    turn: Turn,
    proposal: dict[str, Any] | None = None,
    outcome: dict[str, Any] | None = None,
    answer_error: str | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "turn": turn.number,
        "request": turn.request,
        "kind": turn.kind,
        "text": turn.text,
        "explanation": turn.explanation,
        "program": None,
        "proposal": None,
        "outcome": None,
        "answer": None,
        "errors": [],
        "attempts": turn.attempts,
    }
    if turn.kind == PROGRAM:
        body["program"] = {"language": turn.language, "source": turn.source}
        body["proposal"] = proposal
        body["outcome"] = outcome
        body["answer"] = turn.reply and {k: v for k, v in turn.reply.items() if k != "status"}
        if answer_error is not None:
            body["answer_error"] = answer_error
    if turn.kind == REFUSED and turn.attempts:
        body["errors"] = turn.attempts[-1].get("errors", [])
    return body


def conversation_json(conversation: Conversation, turns: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": str(conversation.id),
        "owner": conversation.owner,
        "created_at": conversation.created_on.isoformat(),
        "updated_at": conversation.modified_on.isoformat(),
        "turns": turns,
    }
