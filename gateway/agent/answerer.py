"""The answerer: a separate call, with no tools, that turns an outcome into a reply.

It is the only model that sees data (the outcome's result, events and errors). What it
writes is stored for the user and checked by the verifier; it never reaches the planner.
"""

from __future__ import annotations

import json
from typing import Any

from gateway.agent.prompts import ANSWERER, FIX_FORMAT
from gateway.agent.provider import Message, Meter, Provider
from gateway.agent.structured import (
    ANSWER_OUTPUT,
    ModelAnswer,
    StructuredOutputError,
    parse_answer,
)
from gateway.agent.verifier import verify
from gateway.core.errors import GatewayError

OUTCOME_FIELDS = ("status", "changed", "events", "result", "error")


class Answerer:
    def __init__(self, provider: Provider, model: str) -> None:
        self.provider = provider
        self.model = model

    def answer(
        self, request: str, language: str, source: str, outcome: dict[str, Any], meter: Meter
    ) -> dict[str, Any]:
        """The verified reply: `{text, claims, corrected, model_text}`."""
        shown = {
            "request": request,
            "program": {"language": language, "source": source},
            "outcome": {key: outcome.get(key) for key in OUTCOME_FIELDS},
        }
        messages: list[Message] = [
            {"role": "system", "content": ANSWERER},
            {"role": "user", "content": json.dumps(shown, ensure_ascii=False)},
        ]
        return verify(self._reply(messages, meter), outcome)

    def _reply(self, messages: list[Message], meter: Meter) -> ModelAnswer:
        for attempt in (1, 2):
            completion = self.provider.complete(
                messages, schema=ANSWER_OUTPUT, meter=meter, model=self.model
            )
            try:
                return parse_answer(completion.content)
            except StructuredOutputError as error:
                if attempt == 2:
                    raise GatewayError(
                        "unavailable",
                        f"the answerer model's reply did not match its schema twice ({error})",
                    ) from None
                messages += [
                    {"role": "assistant", "content": (completion.content or "")[:2000]},
                    {"role": "user", "content": FIX_FORMAT.format(error=error)},
                ]
        raise AssertionError("unreachable")
