"""How turns and conversations read to callers (HTTP, CLI): JSON-ready dicts.

A program turn carries the gateway's proposal and its authoritative outcome (status,
changed, events, result, error) beside the answer, whose parts say whose each is: the
code's facts, quoted data with its author, the model's words that the code let stand
(gateway/agent/answer_parts.py). A planner's answer comes checked the same way.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from domain.conversation import ANSWER, PROGRAM, REFUSED, Conversation, Turn
from gateway.agent.answer_parts import Answer
from gateway.agent.authors import Authors
from gateway.agent.structured import ModelAnswer
from gateway.agent.verifier import verify, verify_planner_answer
from gateway.core.results import Outcome, Proposal


def effective_outcome(proposal: Proposal, now: datetime) -> Outcome:
    """The run's outcome; a pending proposal past its expiry is expired, nothing written."""
    if proposal.status == "pending" and now >= datetime.fromisoformat(proposal.expires_at):
        return proposal.outcome.model_copy(
            update={
                "status": "expired",
                "changed": "nothing",
                "events": [],
                "result": None,
                "error": f"proposal {proposal.id} expired at {proposal.expires_at} "
                "unconfirmed; nothing was written",
            }
        )
    return proposal.outcome


def turn_answer(
    turn: Turn,
    proposal: Proposal | None,
    outcome: Outcome | None,
    authors: Authors,
) -> Answer | None:
    """The answer of a turn, made again from what is stored: the run and the model's reply.

    The model's reply is kept as it wrote it (`model_text`; an answer stored before it was
    kept whole has it in `text`), and checked again on every reading.
    """
    if turn.kind == ANSWER and turn.text:
        return verify_planner_answer(turn.text, turn.request, authors.accounts)
    if turn.kind != PROGRAM or turn.reply is None or proposal is None or outcome is None:
        return None
    reply = turn.reply
    written = reply["model_text"] if reply.get("model_text") is not None else reply["text"]
    said = ModelAnswer(text=str(written), claims=reply["claims"])
    return verify(said, proposal, outcome, turn.request, authors)


def turn_json(
    turn: Turn,
    proposal: Proposal | None = None,
    outcome: Outcome | None = None,
    answer: Answer | None = None,
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
        "answer": answer.to_json() if answer is not None else None,
        "errors": [],
        "attempts": turn.attempts,
    }
    if turn.kind == ANSWER and answer is not None:
        # The planner's words as they stand; the code's note when some were withheld.
        body["text"] = "\n".join(part.text for part in answer.parts)
    if turn.kind == PROGRAM:
        body["program"] = {"language": turn.language, "source": turn.source}
        body["proposal"] = proposal.model_dump(mode="json") if proposal else None
        body["outcome"] = outcome.model_dump(mode="json") if outcome else None
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
