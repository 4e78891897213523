"""The agent: a user's message becomes a question, an answer, or a proposal to confirm.

The path of one message (docs/DESIGN.md, the life of an agent request):
1. The planner, whose context holds no data (gateway/agent/context.py), reads sheets and
   replies with a program, a question or an answer. A reply it could not give in a usable
   form, even after its one fix, is a refused turn: the request stays in the conversation
   with what went wrong, for the user to act on.
2. The program goes through the gateway like any other: checks, preview, a proposal.
   A program refused by its checks goes back to the planner once, with the errors.
3. The user confirms the proposal through the normal path (HTTP or CLI); the agent has
   no way to confirm anything.
4. Once the run is decided, the answer is made by the code: the run's facts, the data in
   it quoted with its author, and what of the answerer's reply those support
   (gateway/agent/verifier.py). A planner's answer is checked for account facts too.

Nothing is kept in the process: conversations are aggregates in the store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from openai import OpenAI

from application.domains import Domain
from application.principals import PrincipalView
from application.results import Outcome, Proposal
from domain.conversation import PROGRAM, Conversation, Turn
from gateway.agent.answer_parts import Answer
from gateway.agent.answerer import Answerer
from gateway.agent.authors import Authors
from gateway.agent.catalog_form import uses_stubs
from gateway.agent.config import AgentConfig
from gateway.agent.context import planner_messages, planner_turns, status_line
from gateway.agent.planner import Planner, UnusableReplies, reply_message
from gateway.agent.prompts import default_domain, planner_prompt, planner_stubs_prompt
from gateway.agent.provider import Meter, Provider
from gateway.agent.repair import attempt, check_errors, repair_request, unusable_attempts
from gateway.agent.structured import ModelAnswer, PlannerReply
from gateway.agent.turns import (
    AgentConversation,
    AgentReply,
    AgentTurn,
    agent_conversation,
    agent_reply,
    agent_turn,
    effective_outcome,
    turn_answer,
)
from gateway.agent.verifier import verify, verify_planner_answer
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.policy.decisions import may_write_conversation
from gateway.core.text_fields import MAX_REQUEST, check_words

MAX_ATTEMPTS = 2  # the first program and its one repair


@dataclass
class _Turn:
    """One planned turn, before it is appended to the conversation."""

    record: Callable[[Conversation], None]
    reply: PlannerReply | None = None
    proposal: Proposal | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)


class Agent:
    def __init__(
        self,
        gateway: Gateway,
        config: AgentConfig,
        *,
        client: OpenAI | None = None,
        domain: Domain | None = None,
    ) -> None:
        self.gateway = gateway
        self.config = config
        # The domain served: what the prompts say of it (`agent_words`), how its histories
        # are read (`agent_histories`); the default domain when none is given.
        self.domain = default_domain() if domain is None else domain
        self.words = self.domain.agent_words
        self.conversations = gateway.conversations
        self._client = client
        self._provider: Provider | None = None

    @property
    def unavailable(self) -> str | None:
        """Why the agent cannot run (which variables to set), or None."""
        return self.config.unavailable()

    # What the HTTP layer and the CLI call.

    def message(
        self, principal: PrincipalView, text: Any, conversation_id: str | None = None
    ) -> AgentReply:
        """The turn this message made: a question, an answer, a proposal, or a refusal.

        A proposal waits for the user's confirmation, unless the gateway decided it at once
        (a read-only program, or one that failed while running): then it comes answered.
        A provider failure raises a GatewayError and the conversation is left as it was.
        """
        request = _request_text(text)
        provider = self._provider_or_raise()
        if conversation_id is None:
            conversation = self.conversations.start(principal)
        else:
            conversation = self.conversations.get(principal, conversation_id, writing=True)
        meter = Meter()
        planned = self._plan(provider, principal, conversation, request, meter)
        outcome: Outcome | None = None
        said: ModelAnswer | None = None
        answer: Answer | None = None
        answer_error = None
        authors = Authors(self.gateway, principal, self.gateway.catalog, self.domain)
        if planned.proposal is not None and planned.reply is not None:
            outcome = effective_outcome(planned.proposal, self._now())
            if outcome.status != "pending":
                try:
                    said = self._answerer(provider).answer(
                        request,
                        str(planned.reply.language),
                        str(planned.reply.source),
                        outcome,
                        meter,
                    )
                except GatewayError as failure:
                    # The run is already decided and recorded: keep the turn, answer later.
                    answer_error = str(failure)
                else:
                    answer = verify(said, planned.proposal, outcome, request, authors)
        elif planned.reply is not None and planned.reply.kind == "answer":
            answer = verify_planner_answer(
                str(planned.reply.text), request, authors.ids, authors.words
            )

        def change(fresh: Conversation) -> None:
            planned.record(fresh)
            if said is not None and answer is not None and outcome is not None:
                turn = fresh.turns[-1]
                _record_answer(fresh, turn, outcome, said, answer)

        saved = self.conversations.append(conversation, change)
        turn = saved.turns[-1]
        made = agent_turn(turn, planned.proposal, outcome, answer, answer_error)
        return agent_reply(made, str(saved.id), meter.usage())

    def conversation(self, principal: PrincipalView, conversation_id: str) -> AgentConversation:
        """The whole conversation; runs decided since are answered now, for their owner.

        Only the owner's reading calls the answerer (an auditor reads what is there); a
        provider failure leaves that reply for a later reading, under `answer_error`.
        """
        conversation = self.conversations.get(principal, conversation_id, writing=False)
        proposals = self._proposals(principal, conversation)
        now = self._now()
        outcomes = {n: effective_outcome(p, now) for n, p in proposals.items()}
        errors: dict[int, str] = {}
        due = [
            turn
            for turn in conversation.turns
            if turn.kind == PROGRAM
            and turn.reply is None
            and turn.number in outcomes
            and outcomes[turn.number].status != "pending"
        ]
        authors = Authors(self.gateway, principal, self.gateway.catalog, self.domain)
        # Answering adds the replies to the conversation: its owner's reading does it.
        if due and may_write_conversation(principal, conversation.owner):
            conversation = self._answer_due(
                conversation, due, proposals, outcomes, errors=errors, authors=authors
            )
        turns: list[AgentTurn] = []
        for t in conversation.turns:
            proposal, outcome = proposals.get(t.number), outcomes.get(t.number)
            answer = turn_answer(t, proposal, outcome, authors)
            turns.append(agent_turn(t, proposal, outcome, answer, errors.get(t.number)))
        return agent_conversation(conversation, turns)

    # Inside.

    def _plan(
        self,
        provider: Provider,
        principal: PrincipalView,
        conversation: Conversation,
        request: str,
        meter: Meter,
    ) -> _Turn:
        history = planner_turns(
            conversation,
            lambda turn: self._status(principal, turn),
            self.config.history_turns,
        )
        system = planner_stubs_prompt(principal, self.gateway.catalog_for(principal), self.words)
        stubs = uses_stubs(self.config.catalog, system)
        if not stubs:
            system = planner_prompt(principal, self.gateway.directory(principal), self.words)
        messages = planner_messages(system, history, request)
        # With the stubs the planner has every sheet already: it has none to ask for.
        rounds = 0 if stubs else self.config.max_tool_rounds
        planner = Planner(self.gateway, provider, rounds, self.config.max_tokens, self.words)
        attempts: list[dict[str, Any]] = []
        may_ask = True
        while True:
            try:
                reply = planner.plan(principal, messages, meter, may_ask=may_ask)
            except UnusableReplies as unusable:
                attempts.extend(unusable_attempts(unusable.errors))
                return _Turn(record=lambda c: c.refuse(request, attempts), attempts=attempts)
            if reply.kind != "program":
                return _Turn(record=_words(request, reply, attempts), reply=reply)
            assert reply.language is not None and reply.source is not None
            try:
                proposal = self.gateway.propose(
                    replace(principal, interface="agent"),
                    reply.language,
                    reply.source,
                    request=request,
                )
            except GatewayError as refusal:
                errors = check_errors(self.gateway, principal, refusal)
                if errors is None:
                    if refusal.run_id is None:
                        raise
                    # It failed while running: a decided run, for the answerer to explain.
                    proposal = self.gateway.proposal(principal, refusal.run_id)
                else:
                    attempts.append(attempt(reply, refusal.run_id, errors))
                    if len(attempts) == MAX_ATTEMPTS:
                        return _Turn(
                            record=lambda c: c.refuse(request, attempts), attempts=attempts
                        )
                    # Refused for permissions, a question to the user cannot help.
                    may_ask = refusal.kind != "forbidden"
                    messages += [
                        reply_message(reply),
                        repair_request(errors, forbidden=not may_ask),
                    ]
                    continue
            return _Turn(
                record=_proposed(request, reply, proposal.id, attempts),
                reply=reply,
                proposal=proposal,
                attempts=attempts,
            )

    def _status(self, principal: PrincipalView, turn: Turn) -> str:
        try:
            proposal = self.gateway.proposal(principal, str(turn.run_id)).model_dump(mode="json")
        except GatewayError:
            return f"Status of your program of turn {turn.number}: unknown."
        return status_line(turn, proposal, self._now(), self.domain.owned_words.records)

    def _proposals(
        self, principal: PrincipalView, conversation: Conversation
    ) -> dict[int, Proposal]:
        found = {}
        for turn in conversation.turns:
            if turn.kind == PROGRAM and turn.run_id:
                try:
                    found[turn.number] = self.gateway.proposal(principal, turn.run_id)
                except GatewayError:
                    continue
        return found

    def _answer_due(
        self,
        conversation: Conversation,
        due: list[Turn],
        proposals: dict[int, Proposal],
        outcomes: dict[int, Outcome],
        *,
        errors: dict[int, str],
        authors: Authors,
    ) -> Conversation:
        reason = self.unavailable
        answers: dict[int, tuple[ModelAnswer, Answer]] = {}
        for turn in due:
            if reason is not None:
                errors[turn.number] = reason
                continue
            outcome = outcomes[turn.number]
            try:
                said = self._answerer(self._provider_or_raise()).answer(
                    turn.request, str(turn.language), str(turn.source), outcome, Meter()
                )
            except GatewayError as failure:
                errors[turn.number] = str(failure)
                continue
            proposal = proposals[turn.number]
            answer = verify(said, proposal, outcome, turn.request, authors)
            answers[turn.number] = (said, answer)
        if not answers:
            return conversation

        def change(fresh: Conversation) -> None:
            for number, (said, answer) in answers.items():
                turn = fresh.turn(number)
                if turn is not None and turn.reply is None:  # another reader may have won
                    _record_answer(fresh, turn, outcomes[number], said, answer)

        return self.conversations.append(conversation, change)

    def _provider_or_raise(self) -> Provider:
        if self._provider is None:
            self._provider = Provider(self.config, self._client)
        return self._provider

    def _answerer(self, provider: Provider) -> Answerer:
        return Answerer(provider, self.config.answerer_model, self.words)

    def _now(self) -> datetime:
        return self.gateway.proposals.clock()


def _record_answer(
    conversation: Conversation, turn: Turn, outcome: Outcome, said: ModelAnswer, answer: Answer
) -> None:
    """Keep the model's reply as it wrote it, and what of it stood (read again each time)."""
    conversation.answer(
        turn.number,
        run_id=str(turn.run_id),
        status=outcome.status,
        text=answer.voice,
        claims=said.claims,
        corrected=answer.corrected,
        model_text=said.text,
    )


def _request_text(text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise GatewayError("bad-request", "text: the message must be a non-empty string")
    check_words("text", text, max_length=MAX_REQUEST)
    return text.strip()


def _words(
    request: str, reply: PlannerReply, attempts: list[dict[str, Any]]
) -> Callable[[Conversation], None]:
    text = str(reply.text)
    if reply.kind == "question":
        return lambda c: c.ask(request, text, attempts)
    return lambda c: c.reply(request, text, attempts)


def _proposed(
    request: str, reply: PlannerReply, run_id: str, attempts: list[dict[str, Any]]
) -> Callable[[Conversation], None]:
    def record(conversation: Conversation) -> None:
        conversation.propose(
            request,
            language=str(reply.language),
            source=str(reply.source),
            explanation=reply.explanation or "",
            run_id=run_id,
            attempts=attempts,
        )

    return record
