"""The planner's loop: read sheets through find_actions, then one structured reply.

Its only tool returns sheets, which are derived from the use-case classes: no data.
A reply that fails its schema gets one request to fix it; a second failure ends the request.
"""

from __future__ import annotations

import json

from openai.types.chat import ChatCompletionToolParam

from application.principals import PrincipalView
from gateway.agent.prompts import FIX_FORMAT, NO_MORE_TOOLS
from gateway.agent.provider import Completion, Message, Meter, Provider, ToolCall, tool_arguments
from gateway.agent.structured import (
    PLANNER_OUTPUT,
    PlannerReply,
    StructuredOutputError,
    parse_planner_reply,
)
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway

MAX_NAMES = 20
FIND_ACTIONS: ChatCompletionToolParam = {
    "type": "function",
    "function": {
        "name": "find_actions",
        "description": "The full sheets (parameters, result) of the named use cases.",
        "strict": True,
        "parameters": {
            "type": "object",
            "additionalProperties": False,
            "required": ["names"],
            "properties": {
                "names": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": 'Use case names from the directory, e.g. ["transfer"].',
                }
            },
        },
    },
}


class Planner:
    def __init__(self, gateway: Gateway, provider: Provider, max_tool_rounds: int) -> None:
        self.gateway = gateway
        self.provider = provider
        self.max_tool_rounds = max_tool_rounds

    def plan(self, principal: PrincipalView, messages: list[Message], meter: Meter) -> PlannerReply:
        """The planner's final reply; `messages` grows with the exchange, for a repair."""
        rounds = 0
        unusable = 0
        while True:
            tools = [FIND_ACTIONS] if rounds < self.max_tool_rounds else None
            completion = self.provider.complete(
                messages, schema=PLANNER_OUTPUT, meter=meter, tools=tools
            )
            if completion.tool_calls and tools:
                messages.append(completion.assistant_message())
                messages.extend(self._tool_results(principal, completion.tool_calls))
                rounds += 1
                if rounds == self.max_tool_rounds:
                    messages.append({"role": "user", "content": NO_MORE_TOOLS})
                continue
            try:
                if completion.tool_calls:
                    raise StructuredOutputError("it calls a tool where the final reply was due")
                return parse_planner_reply(completion.content)
            except StructuredOutputError as error:
                unusable += 1
                if unusable > 1:
                    raise GatewayError(
                        "unavailable",
                        f"the planner model's reply did not match its schema twice ({error}); "
                        "nothing was changed",
                    ) from None
                messages.extend(_fix_request(completion, str(error)))

    def _tool_results(self, principal: PrincipalView, calls: list[ToolCall]) -> list[Message]:
        return [
            {"role": "tool", "tool_call_id": call.id, "content": self._run_tool(principal, call)}
            for call in calls
        ]

    def _run_tool(self, principal: PrincipalView, call: ToolCall) -> str:
        if call.name != "find_actions":
            return _tool_error(f"no tool {call.name}; the only tool is find_actions")
        arguments = tool_arguments(call)
        names = arguments.get("names") if isinstance(arguments, dict) else None
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return _tool_error('find_actions takes {"names": ["use_case", ...]}')
        if not names or len(names) > MAX_NAMES:
            return _tool_error(f"find_actions takes 1 to {MAX_NAMES} names")
        try:
            sheets = self.gateway.sheets(principal, list(dict.fromkeys(names)))
        except GatewayError as refusal:
            # Unknown or forbidden names: the message names the use case, never data.
            return _tool_error(str(refusal))
        shown = [sheet.model_dump(mode="json") for sheet in sheets]
        return json.dumps(shown, separators=(",", ":"), ensure_ascii=False)


def _fix_request(completion: Completion, error: str) -> list[Message]:
    said = completion.content if completion.content is not None else ""
    return [
        {"role": "assistant", "content": said[:2000]},
        {"role": "user", "content": FIX_FORMAT.format(error=error)},
    ]


def _tool_error(message: str) -> str:
    return json.dumps({"error": message})


def reply_message(reply: PlannerReply) -> Message:
    """The planner's reply as an assistant message, before a repair request."""
    return {"role": "assistant", "content": json.dumps(reply.to_json())}
