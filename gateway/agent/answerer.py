"""The answerer: a separate call, with no tools, that puts an outcome into words.

It is the only model that sees data (the outcome's result, events and errors), so it may be
told anything by that data. Its reply is never the answer: the verifier builds the answer
from the code's facts and keeps only the sentences of this reply that they support. It
never reaches the planner.
"""

from __future__ import annotations

import json

from application.domains import AgentWords
from application.results import Outcome
from gateway.agent.prompts import FIX_FORMAT, answerer_prompt
from gateway.agent.provider import Message, Meter, Provider
from gateway.agent.structured import (
    ANSWER_OUTPUT,
    ModelAnswer,
    StructuredOutputError,
    parse_answer,
)
from gateway.core.errors import GatewayError

OUTCOME_FIELDS = ("status", "changed", "events", "result", "error")


class Answerer:
    def __init__(self, provider: Provider, model: str, words: AgentWords | None = None) -> None:
        self.system = answerer_prompt(words)
        self.provider = provider
        self.model = model

    def answer(
        self, request: str, language: str, source: str, outcome: Outcome, meter: Meter
    ) -> ModelAnswer:
        """The model's reply, as it wrote it (the verifier decides what of it stands)."""
        shown = {
            "request": request,
            "program": {"language": language, "source": source},
            "outcome": outcome.model_dump(mode="json", include=set(OUTCOME_FIELDS)),
        }
        messages: list[Message] = [
            {"role": "system", "content": self.system},
            {"role": "user", "content": json.dumps(shown, ensure_ascii=False)},
        ]
        return self._reply(messages, meter)

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
