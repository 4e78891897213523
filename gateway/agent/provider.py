"""One chat completion from an OpenAI-compatible provider, with its failures made plain.

Every provider failure becomes a GatewayError that says what happened and that nothing was
changed: the agent calls the model before it proposes anything, so a failure there leaves
the store as it was.

Every request carries a bound on the reply (`max_tokens`), and a reply cut off there says
so (`Completion.truncated`). Retries are Sluice's own, and only for failures that cost the
server nothing: no connection, or a 429 or 5xx answered at once. A request that timed out is
never sent again: a slow local server may still be computing it, and a second copy would
only queue behind the first.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

import openai
from openai import OpenAI
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

from gateway.agent.config import MAX_TOKENS, TIMEOUT, AgentConfig
from gateway.agent.structured import OutputSchema
from gateway.core.errors import GatewayError

Message = dict[str, Any]
NOTHING_CHANGED = "nothing was changed"
# Words a provider's 400 uses when it has no structured output: then we fall back to text.
NO_JSON_SCHEMA_HINTS = ("response_format", "json_schema", "structured output")
# OpenAI's reasoning models refuse max_tokens and name the parameter they take instead.
TOKEN_FIELDS = ("max_tokens", "max_completion_tokens")
# A 429 or 5xx that came sooner than this (or a quarter of the timeout) was not a
# computation cut short: asking again costs the server nothing.
QUICK_SECONDS = 5.0
# Waits between retries: the provider's Retry-After up to MAX_WAIT, else a short backoff.
MAX_WAIT = 20.0
FIRST_WAIT = 0.5


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
    finish_reason: str | None = None

    @property
    def truncated(self) -> bool:
        """The reply stopped at the token bound, before the model had finished it."""
        return self.finish_reason == "length"


class Provider:
    def __init__(self, config: AgentConfig, client: OpenAI | None = None) -> None:
        config.require()
        self.config = config
        self.client = client or OpenAI(
            base_url=config.base_url,
            api_key=config.key,
            timeout=config.timeout_seconds,
            max_retries=0,  # retried here, where a timeout is told from a quick failure
        )
        # A cache of what the provider can do, not state: any process finds it out alike.
        self.text_mode = config.structured_output == "text"
        self.token_field = TOKEN_FIELDS[0]

    def complete(
        self,
        messages: list[Message],
        *,
        schema: OutputSchema,
        meter: Meter,
        model: str | None = None,
    ) -> Completion:
        while True:
            try:
                return self._complete(messages, schema, meter, model)
            except GatewayError as refusal:
                if self._wants_other_token_field(refusal):
                    self.token_field = TOKEN_FIELDS[1]
                elif self._lacks_json_schema(refusal):
                    self.text_mode = True
                else:
                    raise

    def _lacks_json_schema(self, refusal: GatewayError) -> bool:
        return (
            self.config.structured_output == "auto"
            and not self.text_mode
            and refusal.extra.get("provider_status") in (400, 422)
            and any(hint in refusal.message.lower() for hint in NO_JSON_SCHEMA_HINTS)
        )

    def _wants_other_token_field(self, refusal: GatewayError) -> bool:
        return (
            self.token_field == TOKEN_FIELDS[0]
            and refusal.extra.get("provider_status") in (400, 422)
            and TOKEN_FIELDS[1] in refusal.message
        )

    def _complete(
        self,
        messages: list[Message],
        schema: OutputSchema,
        meter: Meter,
        model: str | None,
    ) -> Completion:
        options: dict[str, Any] = {self.token_field: self.config.max_tokens}
        if self.text_mode:
            messages = _with_instructions(messages, schema.instructions())
        else:
            options["response_format"] = schema.response_format()
        if self.config.temperature is not None:
            options["temperature"] = self.config.temperature
        meter.calls += 1
        try:
            completion = self._create(
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

    def _create(self, **request: Any) -> ChatCompletion:
        """The completion, asked again (up to max_retries) only where that is safe."""
        retries = 0
        while True:
            started = time.monotonic()
            try:
                completion: ChatCompletion = self.client.chat.completions.create(**request)
            except openai.OpenAIError as error:
                took = time.monotonic() - started
                wait = self._retry_wait(error, took, retries)
                if wait is None:
                    raise
                retries += 1
                time.sleep(wait)
                continue
            return completion

    def _retry_wait(self, error: openai.OpenAIError, took: float, retries: int) -> float | None:
        """How long to wait before asking again, or None: not asked again."""
        if retries >= self.config.max_retries:
            return None
        if isinstance(error, openai.APITimeoutError):
            # Only a connection that was never made: the server has not seen the request.
            if type(error.__cause__).__name__ not in ("ConnectTimeout", "PoolTimeout"):
                return None
        elif isinstance(error, openai.APIStatusError):
            quick = min(QUICK_SECONDS, self.config.timeout_seconds / 4)
            if not (error.status_code == 429 or error.status_code >= 500) or took > quick:
                return None
            asked = _retry_after(error)
            if asked is not None:
                return asked if asked <= MAX_WAIT else None
        elif not isinstance(error, openai.APIConnectionError):
            return None
        return FIRST_WAIT * 2.0**retries * (1 - 0.25 * random.random())

    def _refusal(self, error: openai.OpenAIError) -> GatewayError:
        where = self.config.base_url or "api.openai.com"
        if isinstance(error, openai.APITimeoutError):
            return GatewayError(
                "unavailable",
                f"the model provider at {where} did not answer within "
                f"{self.config.timeout_seconds:g} s; it was not asked again, since it may "
                f"still be working on the request (a slow local model needs a longer "
                f"{TIMEOUT}, or a smaller {MAX_TOKENS}); {NOTHING_CHANGED}",
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
        choice = completion.choices[0]
        message = choice.message
        finish_reason = choice.finish_reason
        # No tools are offered; a tool call is read only to tell the model it cannot make one.
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
    return Completion(content=content, tool_calls=calls, finish_reason=finish_reason)


def _retry_after(error: openai.APIStatusError) -> float | None:
    """The provider's Retry-After (or OpenAI's retry-after-ms), in seconds, if it gave one."""
    headers = error.response.headers
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            return max(0.0, float(headers.get(name, "")) / scale)
        except ValueError:
            continue
    return None


def _with_instructions(messages: list[Message], instructions: str) -> list[Message]:
    first, *rest = messages
    return [{**first, "content": f"{first['content']}\n\n{instructions}"}, *rest]


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
