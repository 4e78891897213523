"""The planner's loop: sheets when it asks for them, then its reply, all as structured output.

The planner asks for sheets with a reply of kind sheets (the seed's find_actions), not with
a tool call: a server that enforces the reply's schema from the first token (llama.cpp
does) can never emit a tool call, while a reply it can always give. The sheets come back as
the next user message; they are derived from the use-case classes: no data.

A reply that cannot be used (off its schema, contradicting itself, cut off at the token
bound) gets one request to fix it; a second ends the request with `UnusableReplies`.
"""

from __future__ import annotations

import json

from application.domains import AgentWords
from application.principals import PrincipalView
from application.results import Sheet
from gateway.agent.config import MAX_TOKENS
from gateway.agent.prompts import CUT_OFF, FIX_FORMAT, NO_MORE_SHEETS, SHEETS, find_actions
from gateway.agent.provider import Completion, Message, Meter, Provider
from gateway.agent.structured import (
    PlannerReply,
    StructuredOutputError,
    parse_planner_reply,
    planner_output,
    written,
)
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway

__all__ = ["MAX_NAMES", "Planner", "UnusableReplies", "reply_message"]

MAX_NAMES = 20


class UnusableReplies(Exception):  # noqa: N818 - it names what happened, as the agent reads it
    """The planner's reply could not be used, nor its one fix: why, for each of them."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = errors


class Planner:
    def __init__(
        self,
        gateway: Gateway,
        provider: Provider,
        max_sheet_rounds: int,
        max_tokens: int,
        words: AgentWords | None = None,
    ) -> None:
        self.words = words
        self.gateway = gateway
        self.provider = provider
        self.max_sheet_rounds = max_sheet_rounds
        self.max_tokens = max_tokens

    def plan(
        self,
        principal: PrincipalView,
        messages: list[Message],
        meter: Meter,
        *,
        may_ask: bool = True,
    ) -> PlannerReply:
        """The planner's final reply; `messages` grows with the exchange, for a repair.

        `may_ask=False`: no question is offered (after a refusal for permissions, asking
        the user again cannot give the principal the right it lacks)."""
        use_cases = list(self.gateway.catalog_for(principal).names)
        rounds = 0
        unusable: list[str] = []
        while True:
            may_read = rounds < self.max_sheet_rounds and bool(use_cases)
            schema = planner_output(use_cases if may_read else None, may_ask=may_ask)
            completion = self.provider.complete(messages, schema=schema, meter=meter)
            try:
                reply = self._read(completion, may_read, may_ask)
            except StructuredOutputError as error:
                unusable.append(str(error))
                if len(unusable) > 1:
                    raise UnusableReplies(unusable) from None
                messages.extend(self._fix_request(completion, str(error)))
                continue
            if reply.kind != "sheets":
                return reply
            rounds += 1
            sheets = self._sheets(principal, list(reply.names))
            if rounds >= self.max_sheet_rounds:
                sheets += f"\n\n{NO_MORE_SHEETS}"
            messages += [reply_message(reply), {"role": "user", "content": sheets}]

    def _read(self, completion: Completion, may_read_sheets: bool, may_ask: bool) -> PlannerReply:
        if completion.truncated:
            raise StructuredOutputError(
                f"the reply was cut off at the bound of {self.max_tokens} tokens "
                f"({MAX_TOKENS}) before it was complete"
            )
        if completion.tool_calls:
            raise StructuredOutputError(
                f"it calls a tool ({completion.tool_calls[0].name}) but there are no tools; "
                f"ask for sheets with a reply such as {written(find_actions(self.words))}"
            )
        return parse_planner_reply(
            completion.content, may_read_sheets=may_read_sheets, may_ask=may_ask
        )

    def _fix_request(self, completion: Completion, error: str) -> list[Message]:
        said = completion.content if completion.content is not None else ""
        if completion.truncated:
            # Repeating a reply that ran on (a loop, say) would invite more of the same.
            cut = said[:200] + " [...]"
            ask = CUT_OFF.format(limit=self.max_tokens)
            return [{"role": "assistant", "content": cut}, {"role": "user", "content": ask}]
        return [
            {"role": "assistant", "content": said[:2000]},
            {"role": "user", "content": FIX_FORMAT.format(error=error)},
        ]

    def _sheets(self, principal: PrincipalView, names: list[str]) -> str:
        """The sheets asked for, and why any other name has none."""
        found: list[Sheet] = []
        missing: list[str] = []
        for name in names[:MAX_NAMES]:
            try:
                found += self.gateway.sheets(principal, [name])
            except GatewayError as refusal:
                # Unknown or forbidden names: the message names the use case, never data.
                missing.append(str(refusal))
        if len(names) > MAX_NAMES:
            missing.append(f"at most {MAX_NAMES} sheets at once")
        shown = json.dumps(
            [sheet.model_dump(mode="json") for sheet in found],
            separators=(",", ":"),
            ensure_ascii=False,
        )
        text = SHEETS.format(names=", ".join(sheet.name for sheet in found) or "none", sheets=shown)
        if missing:
            text += "\nNo sheet: " + "; ".join(missing)
        return text


def reply_message(reply: PlannerReply) -> Message:
    """The planner's reply as an assistant message, before the next request."""
    return {"role": "assistant", "content": reply.written()}
