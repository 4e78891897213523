"""A conversation with the agent: the user's requests and what the planner did with each.

It lives in the store like a run, so any gateway process can continue it. Each turn is
recorded by ONE event once the planner is done with it, so a turn is never half written.

A turn keeps two kinds of text apart. The planner's own output (its question, answer or
program) and the check errors of its refused programs hold no data and may be shown to the
planner again. The answerer's reply (`Turn.reply`) is written from a run's outcome and may
quote data; it is kept for the user and must never be put back into a planner's context.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from eventsourcing.domain import Aggregate, event

from domain.errors import DomainError

QUESTION, ANSWER, PROGRAM, REFUSED = "question", "answer", "program", "refused"


class TurnNotAnswerableError(DomainError):
    """The turn has no program waiting for a reply, or was already answered."""


@dataclass
class Turn:
    number: int
    request: str
    kind: str
    # The planner's own words: a question or an answer that needs no data.
    text: str | None = None
    # The program of a `program` turn, and the run that checked and previewed it.
    language: str | None = None
    source: str | None = None
    explanation: str | None = None
    run_id: str | None = None
    # Programs refused by the checks before this turn's last one: their source and errors.
    attempts: list[dict[str, Any]] = field(default_factory=list)
    # The answerer's reply to the run's outcome: it may hold data (never for the planner).
    reply: dict[str, Any] | None = None


class Conversation(Aggregate):
    """One principal's requests to the agent, turn by turn."""

    class Started(Aggregate.Created):
        owner: str

    class Asked(Aggregate.Event):
        request: str
        text: str
        attempts: list[dict[str, Any]]

    class Replied(Aggregate.Event):
        request: str
        text: str
        attempts: list[dict[str, Any]]

    class Proposed(Aggregate.Event):
        request: str
        language: str
        source: str
        explanation: str
        run_id: str
        attempts: list[dict[str, Any]]

    class Refused(Aggregate.Event):
        request: str
        attempts: list[dict[str, Any]]

    class Answered(Aggregate.Event):
        turn: int
        run_id: str
        status: str
        text: str
        claims: str
        corrected: bool
        model_text: str | None

    @event(Started)
    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.turns: list[Turn] = []

    # The planner asked a clarifying question.
    def ask(self, request: str, text: str, attempts: list[dict[str, Any]]) -> None:
        self._asked(request, text, attempts)

    @event(Asked)
    def _asked(self, request: str, text: str, attempts: list[dict[str, Any]]) -> None:
        self._add(Turn(len(self.turns) + 1, request, QUESTION, text=text, attempts=attempts))

    # The planner answered without a program (nothing to read or change).
    def reply(self, request: str, text: str, attempts: list[dict[str, Any]]) -> None:
        self._replied(request, text, attempts)

    @event(Replied)
    def _replied(self, request: str, text: str, attempts: list[dict[str, Any]]) -> None:
        self._add(Turn(len(self.turns) + 1, request, ANSWER, text=text, attempts=attempts))

    def propose(
        self,
        request: str,
        *,
        language: str,
        source: str,
        explanation: str,
        run_id: str,
        attempts: list[dict[str, Any]],
    ) -> None:
        self._proposed(
            request=request,
            language=language,
            source=source,
            explanation=explanation,
            run_id=run_id,
            attempts=attempts,
        )

    @event(Proposed)
    def _proposed(
        self,
        *,
        request: str,
        language: str,
        source: str,
        explanation: str,
        run_id: str,
        attempts: list[dict[str, Any]],
    ) -> None:
        turn = Turn(
            len(self.turns) + 1,
            request,
            PROGRAM,
            language=language,
            source=source,
            explanation=explanation,
            run_id=run_id,
            attempts=attempts,
        )
        self._add(turn)

    # Both programs of the turn failed their checks; the request is refused.
    def refuse(self, request: str, attempts: list[dict[str, Any]]) -> None:
        self._refused(request, attempts)

    @event(Refused)
    def _refused(self, request: str, attempts: list[dict[str, Any]]) -> None:
        self._add(Turn(len(self.turns) + 1, request, REFUSED, attempts=attempts))

    def answer(
        self,
        turn: int,
        *,
        run_id: str,
        status: str,
        text: str,
        claims: str,
        corrected: bool,
        model_text: str | None,
    ) -> None:
        """The answerer's reply to a decided run, as the verifier left it; once per turn."""
        target = self.turn(turn)
        if target is None or target.kind != PROGRAM or target.run_id != run_id:
            raise TurnNotAnswerableError(f"turn {turn} has no program run {run_id}")
        if target.reply is not None:
            raise TurnNotAnswerableError(f"turn {turn} is already answered")
        self._answered(
            turn=turn,
            run_id=run_id,
            status=status,
            text=text,
            claims=claims,
            corrected=corrected,
            model_text=model_text,
        )

    @event(Answered)
    def _answered(
        self,
        *,
        turn: int,
        run_id: str,
        status: str,
        text: str,
        claims: str,
        corrected: bool,
        model_text: str | None,
    ) -> None:
        target = self.turns[turn - 1]
        target.reply = {
            "status": status,
            "text": text,
            "claims": claims,
            "corrected": corrected,
            "model_text": model_text,
        }

    def turn(self, number: int) -> Turn | None:
        return self.turns[number - 1] if 1 <= number <= len(self.turns) else None

    def _add(self, turn: Turn) -> None:
        self.turns.append(turn)
