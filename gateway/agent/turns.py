"""How turns and conversations read to callers (HTTP, CLI): frozen models, read by
attribute; `model_dump(mode="json")` is what goes on the wire.

A program turn carries the gateway's proposal and its authoritative outcome (status,
changed, events, result, error) beside the answer, whose parts say whose each is: the
code's facts, quoted data with its author, the model's words that the code let stand
(gateway/agent/answer_parts.py). A planner's answer comes checked the same way.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from application.results import Outcome, Proposal
from domain.conversation import ANSWER, PROGRAM, REFUSED, Conversation, Turn
from gateway.agent.answer_parts import Answer
from gateway.agent.authors import Authors
from gateway.agent.provider import Usage
from gateway.agent.structured import ModelAnswer
from gateway.agent.verifier import verify, verify_planner_answer


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
        return verify_planner_answer(turn.text, turn.request, authors.ids, authors.words)
    if turn.kind != PROGRAM or turn.reply is None or proposal is None or outcome is None:
        return None
    reply = turn.reply
    written = reply["model_text"] if reply.get("model_text") is not None else reply["text"]
    said = ModelAnswer(text=str(written), claims=reply["claims"])
    return verify(said, proposal, outcome, turn.request, authors)


class TurnProgram(BaseModel):
    """The program of a program turn, as the planner wrote it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    language: str | None
    source: str | None


def _absent(value: object) -> bool:
    return value is None


class AgentTurn(BaseModel):
    """One turn: the planner's question or answer (`text`), or a program with the gateway's
    proposal and authoritative outcome beside the answer (`answer`), whose parts say whose
    each is."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turn: int
    request: str
    kind: str = Field(description="question, answer, program or refused.")
    text: str | None
    explanation: str | None
    program: TurnProgram | None = Field(description="The program of a program turn.")
    proposal: Proposal | None
    outcome: Outcome | None
    answer: Answer | None = Field(
        description="For a decided program, or a planner's answer: the code's facts, quoted "
        "data with its author, and what of the model's reply stands."
    )
    errors: list[Any]
    attempts: list[dict[str, Any]]
    # Shown only when there is one.
    answer_error: str | None = Field(
        default=None, description="Why no reply could be made.", exclude_if=_absent
    )


class AgentReply(AgentTurn):
    """The turn a message made, in its conversation, with what it cost."""

    conversation_id: str
    usage: Usage


class AgentConversation(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    owner: str
    created_at: str
    updated_at: str
    turns: tuple[AgentTurn, ...]


def agent_turn(
    turn: Turn,
    proposal: Proposal | None = None,
    outcome: Outcome | None = None,
    answer: Answer | None = None,
    answer_error: str | None = None,
) -> AgentTurn:
    program = turn.kind == PROGRAM
    text = turn.text
    if turn.kind == ANSWER and answer is not None:
        # The planner's words as they stand; the code's note when some were withheld.
        text = "\n".join(part.text for part in answer.parts)
    errors: list[Any] = []
    if turn.kind == REFUSED and turn.attempts:
        errors = turn.attempts[-1].get("errors", [])
    return AgentTurn(
        turn=turn.number,
        request=turn.request,
        kind=turn.kind,
        text=text,
        explanation=turn.explanation,
        program=TurnProgram(language=turn.language, source=turn.source) if program else None,
        proposal=proposal if program else None,
        outcome=outcome if program else None,
        answer=answer,
        errors=errors,
        attempts=turn.attempts,
        answer_error=answer_error if program else None,
    )


def agent_reply(turn: AgentTurn, conversation_id: str, usage: Usage) -> AgentReply:
    return AgentReply(**dict(turn), conversation_id=conversation_id, usage=usage)


def agent_conversation(conversation: Conversation, turns: list[AgentTurn]) -> AgentConversation:
    return AgentConversation(
        id=str(conversation.id),
        owner=conversation.owner,
        created_at=conversation.created_on.isoformat(),
        updated_at=conversation.modified_on.isoformat(),
        turns=tuple(turns),
    )
