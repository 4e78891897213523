"""The agent over HTTP: a message in, a question, an answer or a proposal to confirm out."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, ConfigDict, Field

from gateway.agent import Agent
from gateway.agent.turns import AgentConversation, AgentReply
from gateway.interfaces.http.deps import PrincipalDep
from gateway.interfaces.http.schemas import PROBLEMS, Problem

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


def get_agent(request: Request) -> Agent:
    agent: Agent = request.app.state.agent
    return agent


@router.post("/messages", response_model=AgentReply, operation_id="agent_message")
def message(request: Request, principal: PrincipalDep, body: AgentMessage) -> AgentReply:
    """The planner's question or answer, or a proposal with the model's explanation, to
    confirm through /v1/programs/{id}/confirm."""
    return get_agent(request).message(principal, body.text, body.conversation_id)


@router.get(
    "/conversations/{conversation_id}",
    response_model=AgentConversation,
    operation_id="agent_conversation",
)
def conversation(
    request: Request,
    principal: PrincipalDep,
    conversation_id: Annotated[str, Path(max_length=64)],
) -> AgentConversation:
    """The whole conversation, with the answerer's reply once a proposal is decided; the
    gateway's own fields (status, changed, events, error) stand beside the model's text."""
    return get_agent(request).conversation(principal, conversation_id)
