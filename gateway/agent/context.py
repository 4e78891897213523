"""The planner's context, and the one place that decides what of a conversation it may see (P4).

The planner sees: its system prompt with the principal's directory, the user's requests,
its own earlier replies (questions, answers, programs), and for each program a status line
that the code writes from the run's status alone. It never sees what a use case returned:
not a result, not a preview, not an outcome's error (a refusal such as `alice has only
60.00` carries data), not the answerer's reply. Check errors of its own refused programs
are quoted: they are found before the program runs, so they hold no data; so is why its own
replies could not be used (off their schema, cut off), which is about its text alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from domain.conversation import PROGRAM, REFUSED, Conversation, Turn
from gateway.agent.provider import Message
from gateway.agent.repair import REPLY
from gateway.agent.structured import written

# A run's error ends with the place the program stopped; only those digits are kept.
PLACE = re.compile(r"\((?:line (\d+), column \d+|step (\d+))\)\s*$")
CONFLICT_PREFIX = "conflict:"


@dataclass(frozen=True)
class PlannerTurn:
    """All the planner may see of one past turn."""

    request: str
    reply: dict[str, Any]  # the planner's own reply, as it wrote it
    status: str | None  # written by the code from the run's status; no data


def planner_turns(
    conversation: Conversation, status_of: Callable[[Turn], str], limit: int
) -> list[PlannerTurn]:
    """The last `limit` turns, reduced to what holds no data.

    Reads `request`, the planner's own text or program, and the check errors of refused
    attempts. `Turn.reply`, the answerer's text, is deliberately never read here.
    """
    turns = conversation.turns[-limit:] if limit else []
    seen = []
    for turn in turns:
        if turn.kind == PROGRAM:
            reply = _program(turn.language, turn.source, turn.explanation)
            seen.append(PlannerTurn(turn.request, reply, status_of(turn)))
        elif turn.kind == REFUSED:
            seen.append(_refused(turn))
        else:
            seen.append(PlannerTurn(turn.request, {"kind": turn.kind, "text": turn.text}, None))
    return seen


def _refused(turn: Turn) -> PlannerTurn:
    """Its last attempt: a program refused by its checks, or replies that could not be used."""
    last = turn.attempts[-1] if turn.attempts else {}
    errors = "; ".join(str(e) for e in last.get("errors", []))
    if last.get("stage") == REPLY:
        status = f"Sluice could not use your replies of turn {turn.number}: {errors}"
        return PlannerTurn(turn.request, {"kind": "unusable"}, status)
    reply = _program(last.get("language"), last.get("source"), None)
    status = f"Sluice refused your program of turn {turn.number} before running it: {errors}"
    return PlannerTurn(turn.request, reply, status)


def planner_messages(system: str, history: Sequence[PlannerTurn], request: str) -> list[Message]:
    """System, then user and assistant in turn; a status line opens the next user message.

    Roles alternate strictly, since some chat templates (vLLM, llama.cpp) refuse otherwise.
    """
    messages: list[Message] = [{"role": "system", "content": system}]
    status: str | None = None
    for turn in history:
        messages.append({"role": "user", "content": _with_status(status, turn.request)})
        messages.append({"role": "assistant", "content": written(turn.reply)})
        status = turn.status
    messages.append({"role": "user", "content": _with_status(status, request)})
    return messages


def status_line(
    turn: Turn, proposal: dict[str, Any], now: datetime, records: str = "accounts"
) -> str:
    """`Status of your program of turn 2: committed, 2 events appended.` and the like;
    `records`: what programs read and write, in the served domain's words
    (`OwnedWords.records`)."""
    state = run_state(turn, proposal, now, records)
    return f"Status of your program of turn {turn.number}: {state}."


def run_state(
    turn: Turn, proposal: dict[str, Any], now: datetime, records: str = "accounts"
) -> str:
    status = proposal.get("status")
    if status == "pending":
        if now >= datetime.fromisoformat(str(proposal["expires_at"])):
            return "expired before the user confirmed it; nothing was written"
        return "waiting for the user's confirmation"
    if status == "committed":
        changed = proposal.get("outcome", {}).get("changed", "nothing")
        if changed == "nothing":
            return "ran; it wrote nothing"
        return f"committed, {int(changed)} events appended"
    if status == "rejected":
        return "the user rejected it; nothing was written"
    if status == "expired":
        return "expired before the user confirmed it; nothing was written"
    if status == "failed":
        where = _where(turn, str(proposal.get("error") or ""), records)
        return f"failed{where}; nothing was written"
    return "in an unknown state"


def _where(turn: Turn, error: str, records: str) -> str:
    """Where the program stopped, as digits only: the error text itself may hold data."""
    if error.startswith(CONFLICT_PREFIX):
        return f" when confirmed, because the {records} had changed"
    place = PLACE.search(error)
    if place is None:
        return ""
    line, step = place.groups()
    if line is not None and int(line) <= (turn.source or "").count("\n") + 1:
        return f" at line {int(line)}"
    if step is not None and int(step) <= 1000:
        return f" at step {int(step)}"
    return ""


def _program(language: Any, source: Any, explanation: Any) -> dict[str, Any]:
    return {"kind": "program", "language": language, "explanation": explanation, "source": source}


def _with_status(status: str | None, request: str) -> str:
    return f"[Sluice] {status}\n\n{request}" if status else request
