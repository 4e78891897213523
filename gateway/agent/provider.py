"""One chat completion from an OpenAI-compatible provider, with its failures made plain.

Every provider failure becomes a GatewayError that says what happened and that nothing was
changed: the agent calls the model before it proposes anything, so a failure there leaves
the store as it was.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import openai
from openai import OpenAI
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam, ChatCompletionToolParam

from gateway.agent.config import AgentConfig
from gateway.agent.structured import OutputSchema
from gateway.core.errors import GatewayError

Message = dict[str, Any]
NOTHING_CHANGED = "nothing was changed"
# Words a provider's 400 uses when it has no structured output: then we fall back to text.
NO_JSON_SCHEMA_HINTS = ("response_format", "json_schema", "structured output")


@dataclass
class Meter:
    """Model calls and tokens spent on one request, as the provider reports them."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_json(self) -> dict[str, int]:
        return {
            "model_calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Completion:
    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)

    def assistant_message(self) -> Message:
        """The reply as the next request must repeat it."""
        message: Message = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in self.tool_calls
            ]
        return message


class Provider:
    def __init__(self, config: AgentConfig, client: OpenAI | None = None) -> None:
        config.require()
        self.config = config
        self.client = client or OpenAI(
            base_url=config.base_url,
            api_key=config.key,
            timeout=config.timeout_seconds,
            max_retries=config.max_retries,
        )
        # A cache of what the provider can do, not state: any process finds it out alike.
        self.text_mode = config.structured_output == "text"

    def complete(
        self,
        messages: list[Message],
        *,
        schema: OutputSchema,
        meter: Meter,
        model: str | None = None,
        tools: list[ChatCompletionToolParam] | None = None,
    ) -> Completion:
        try:
            return self._complete(messages, schema, meter, model, tools)
        except GatewayError as refusal:
            if not self._lacks_json_schema(refusal):
                raise
            self.text_mode = True
            return self._complete(messages, schema, meter, model, tools)

    def _lacks_json_schema(self, refusal: GatewayError) -> bool:
        return (
            self.config.structured_output == "auto"
            and not self.text_mode
            and refusal.extra.get("provider_status") in (400, 422)
            and any(hint in refusal.message.lower() for hint in NO_JSON_SCHEMA_HINTS)
        )

    def _complete(
        self,
        messages: list[Message],
        schema: OutputSchema,
        meter: Meter,
        model: str | None,
        tools: list[ChatCompletionToolParam] | None,
    ) -> Completion:
        options: dict[str, Any] = {}
        if self.text_mode:
            messages = _with_instructions(messages, schema.instructions())
        else:
            options["response_format"] = schema.response_format()
        if tools:
            options["tools"] = tools
        if self.config.temperature is not None:
            options["temperature"] = self.config.temperature
        meter.calls += 1
        try:
            completion = self.client.chat.completions.create(
                model=model or self.config.model or "",
                messages=cast(Iterable[ChatCompletionMessageParam], messages),
                **options,
            )
        except openai.OpenAIError as error:
            raise self._refusal(error) from None
        except json.JSONDecodeError as error:
            # The client hands on a body that is not JSON as the decoder's own error.
            raise _malformed(f"its body is not JSON ({error.msg})") from None
        return _read(completion, meter)

    def _refusal(self, error: openai.OpenAIError) -> GatewayError:
        where = self.config.base_url or "api.openai.com"
        if isinstance(error, openai.APITimeoutError):
            return GatewayError(
                "unavailable",
                f"the model provider at {where} did not answer within "
                f"{self.config.timeout_seconds:g} s (tried {self.config.max_retries + 1} times); "
                f"{NOTHING_CHANGED}",
            )
        if isinstance(error, openai.APIConnectionError):
            return GatewayError(
                "unavailable", f"cannot reach the model provider at {where}; {NOTHING_CHANGED}"
            )
        if isinstance(error, openai.APIStatusError):
            return _status_refusal(error, self.config)
        if isinstance(error, openai.APIResponseValidationError):
            return _malformed(f"its reply is not a chat completion ({error.message})")
        return _malformed(str(error))


def _status_refusal(error: openai.APIStatusError, config: AgentConfig) -> GatewayError:
    status = error.status_code
    detail = _provider_message(error)
    extra: dict[str, Any] = {"provider_status": status}
    if isinstance(error, openai.RateLimitError):
        retry = error.response.headers.get("retry-after")
        if retry and retry.isdigit():
            extra["retry_after"] = int(retry)
        message = f"the model provider is rate limiting Sluice (HTTP 429: {detail}); retry later"
    elif status >= 500:
        message = f"the model provider failed (HTTP {status}: {detail})"
    elif isinstance(error, openai.AuthenticationError | openai.PermissionDeniedError):
        message = (
            f"the model provider refused the API key (HTTP {status}: {detail}); "
            "check SLUICE_LLM_API_KEY"
        )
    elif isinstance(error, openai.NotFoundError):
        message = (
            f"the model provider does not serve model {config.model!r} or this path "
            f"(HTTP 404: {detail}); check SLUICE_LLM_MODEL and SLUICE_LLM_BASE_URL"
        )
    else:
        message = f"the model provider rejected the request (HTTP {status}: {detail})"
    return GatewayError("unavailable", f"{message}; {NOTHING_CHANGED}", extra=extra)


def _provider_message(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return _short(inner["message"])
        if isinstance(inner, str):
            return _short(inner)
    return _short(error.message)


def _malformed(why: str) -> GatewayError:
    return GatewayError(
        "unavailable", f"the model provider's reply is malformed: {why}; {NOTHING_CHANGED}"
    )


def _read(completion: ChatCompletion, meter: Meter) -> Completion:
    """Content and tool calls; anything else in the body is the provider's fault."""
    try:
        usage = completion.usage
        if usage is not None:
            meter.prompt_tokens += int(usage.prompt_tokens or 0)
            meter.completion_tokens += int(usage.completion_tokens or 0)
        message = completion.choices[0].message
        # Some local servers leave the id out; the next request must still pair call and result.
        calls = [
            ToolCall(
                id=call.id or f"call_{number}",
                name=call.function.name,
                arguments=call.function.arguments,
            )
            for number, call in enumerate(message.tool_calls or [], 1)
            if call.type == "function"
        ]
        content = message.content
    except (AttributeError, IndexError, TypeError, ValueError) as error:
        raise _malformed(f"no message in the completion ({type(error).__name__})") from None
    if content is not None and not isinstance(content, str):
        raise _malformed("the message content is not text")
    return Completion(content=content, tool_calls=calls)


def _with_instructions(messages: list[Message], instructions: str) -> list[Message]:
    first, *rest = messages
    return [{**first, "content": f"{first['content']}\n\n{instructions}"}, *rest]


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def tool_arguments(call: ToolCall) -> Any:
    """A tool call's arguments, or None when they are not JSON."""
    try:
        return json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return None
