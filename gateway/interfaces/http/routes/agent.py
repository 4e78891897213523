"""The agent over HTTP: a message in, a question, an answer or a proposal to confirm out."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, ConfigDict, Field

from gateway.agent import Agent
from gateway.interfaces.http.deps import PrincipalDep
from gateway.interfaces.http.schemas import PROBLEMS, Outcome, Problem, Proposal, Shape

router = APIRouter(
    prefix="/v1/agent",
    tags=["agent"],
    responses=PROBLEMS
    | {
        503: {
            "model": Problem,
            "content": {"application/problem+json": {}},
            "description": "No model is configured, or the model's provider failed",
        }
    },
)


class AgentMessage(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"text": "Send 10 euros to bob for lunch"}]},
    )

    text: str = Field(description="What the person asks.", min_length=1, max_length=4000)
    conversation_id: str | None = Field(
        default=None, description="Continue this conversation; none starts one.", max_length=64
    )


class AnswerPart(Shape):
    """One part of an answer, and whose it is."""

    kind: Literal["facts", "quoted", "assistant"] = Field(
        description="facts: written by Sluice's code from the run's outcome and the ledger; "
        "quoted: text another principal wrote (a memo, an owner's name) or that the code "
        "cannot vouch for, with its author; assistant: the model's words that the code found "
        "supported by the outcome and the data."
    )
    text: str
    author: str | None = Field(
        description="For a quoted part: who wrote it (an account id for its holder, staff, "
        "the program, Sluice, or an unknown author)."
    )
    what: str | None = Field(description="For a quoted part: what it is (memo, owner of ...).")


class Withheld(Shape):
    text: str = Field(description="A sentence of the model's reply; never shown as the answer.")
    reason: str = Field(description="Why the code did not let it stand.")


class Answer(Shape):
    """The answer to a decided run (or a planner's answer), made by the code."""

    parts: list[AnswerPart] = Field(description="In order; show each with whose it is.")
    text: str = Field(description="All parts as labelled lines, for a client that shows one text.")
    claims: Literal["success", "failure"] | None = Field(
        description="What the model claimed of the run; null for a planner's answer."
    )
    corrected: bool = Field(description="Some of the model's reply was withheld.")
    withheld: list[Withheld]
    model_text: str = Field(description="The model's reply as written: for the record only.")


class AgentTurn(Shape):
    """One turn: the planner's question or answer (`text`), or a program with the gateway's
    proposal and authoritative outcome beside the answer (`answer`), whose parts say whose
    each is."""

    turn: int
    request: str
    kind: str = Field(description="question, answer, program or refused.")
    text: str | None
    explanation: str | None
    program: dict[str, Any] | None = Field(description="`{language, source}` of a program turn.")
    proposal: Proposal | None
    outcome: Outcome | None
    answer: Answer | None = Field(
        description="For a decided program, or a planner's answer: the code's facts, quoted "
        "data with its author, and what of the model's reply stands."
    )
    errors: list[Any]
    attempts: list[dict[str, Any]]
    answer_error: str | None = Field(default=None, description="Why no reply could be made.")


class AgentReply(AgentTurn):
    conversation_id: str


class AgentConversation(Shape):
    id: str
    owner: str
    created_at: str
    updated_at: str
    turns: list[AgentTurn]


def get_agent(request: Request) -> Agent:
    agent: Agent = request.app.state.agent
    return agent


# Unset: a turn shows `answer_error` only when there is one.
@router.post(
    "/messages",
    response_model=AgentReply,
    response_model_exclude_unset=True,
    operation_id="agent_message",
)
def message(request: Request, principal: PrincipalDep, body: AgentMessage) -> dict[str, Any]:
    """The planner's question or answer, or a proposal with the model's explanation, to
    confirm through /v1/programs/{id}/confirm."""
    return get_agent(request).message(principal, body.text, body.conversation_id)


@router.get(
    "/conversations/{conversation_id}",
    response_model=AgentConversation,
    response_model_exclude_unset=True,
    operation_id="agent_conversation",
)
def conversation(
    request: Request,
    principal: PrincipalDep,
    conversation_id: Annotated[str, Path(max_length=64)],
) -> dict[str, Any]:
    """The whole conversation, with the answerer's reply once a proposal is decided; the
    gateway's own fields (status, changed, events, error) stand beside the model's text."""
    return get_agent(request).conversation(principal, conversation_id)
