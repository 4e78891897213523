"""Where the agent's model is: read from the environment, never required by the rest of Sluice.

Any OpenAI-compatible endpoint works (OpenAI, vLLM, Ollama, llama.cpp's server). Reading
the environment never fails: a missing model makes the agent unavailable, with a message
naming the variables to set, while everything else in Sluice keeps working. A setting given
with a bad value is a mistake to fix: `sluice serve` and `sluice chat` refuse to start on
it (exit 2, naming it), and the agent stays unavailable wherever it is built anyway.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from gateway.agent.catalog_form import CATALOG_FORMS, CatalogForm
from gateway.core.errors import GatewayError

StructuredOutput = Literal["auto", "json_schema", "text"]
STRUCTURED_OUTPUTS: tuple[str, ...] = get_args(StructuredOutput)
# directory: a line per use case, sheets read on demand (fewer tokens, more model calls);
# stubs: the documented Python stubs and examples at once (one call; what small models need);
# auto: the stubs while they fit a token budget, else the directory (catalog_form.py).

BASE_URL = "SLUICE_LLM_BASE_URL"
MODEL = "SLUICE_LLM_MODEL"
ANSWER_MODEL = "SLUICE_LLM_ANSWER_MODEL"
API_KEY = "SLUICE_LLM_API_KEY"
FALLBACK_API_KEY = "OPENAI_API_KEY"
TIMEOUT = "SLUICE_LLM_TIMEOUT_SECONDS"
MAX_RETRIES = "SLUICE_LLM_MAX_RETRIES"
OUTPUT = "SLUICE_LLM_STRUCTURED_OUTPUT"
MAX_TOOL_ROUNDS = "SLUICE_LLM_MAX_TOOL_ROUNDS"
TEMPERATURE = "SLUICE_LLM_TEMPERATURE"
MAX_TOKENS = "SLUICE_LLM_MAX_TOKENS"
HISTORY_TURNS = "SLUICE_LLM_HISTORY_TURNS"
CATALOG = "SLUICE_LLM_CATALOG"

# Local servers ignore the key, but the client insists on having one.
NO_KEY = "sk-no-key-needed"

HOW_TO_CONFIGURE = (
    f"set {MODEL} to a model name, then either {API_KEY} (or {FALLBACK_API_KEY}) for "
    f"OpenAI, or {BASE_URL} for another OpenAI-compatible server "
    "(e.g. http://localhost:11434/v1 for Ollama, http://localhost:8000/v1 for vLLM)"
)


@dataclass(frozen=True)
class AgentConfig:
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    # The answerer may be a smaller model; by default it is the planner's.
    answer_model: str | None = None
    timeout_seconds: float = 60.0
    # Retries are for failures that cost the server nothing: no connection, or a 429 or 5xx
    # answered at once. A request that timed out is never sent again (the provider's module).
    max_retries: int = 2
    # The bound on each reply: a generation that loops stops there instead of filling the
    # context. A program, its explanation and the JSON around them fit well within it.
    max_tokens: int = 1024
    # json_schema: the provider enforces the schema; text: the reply is parsed from text;
    # auto: json_schema, falling back to text when the provider says it has no json_schema.
    structured_output: StructuredOutput = "auto"
    # How many times the planner may ask for sheets before it must reply.
    max_tool_rounds: int = 3
    # Unset: the provider's default (some reasoning models refuse any other value).
    temperature: float | None = None
    history_turns: int = 12
    # How the planner is shown what it may call (CatalogForm).
    catalog: CatalogForm = "auto"
    problems: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> AgentConfig:
        source = os.environ if env is None else env
        problems: list[str] = []

        def text(name: str) -> str | None:
            value = source.get(name, "").strip()
            return value or None

        def number(name: str, default: float, *, whole: bool, minimum: float) -> float:
            raw = text(name)
            if raw is None:
                return default
            try:
                value = int(raw) if whole else float(raw)
            except ValueError:
                value = minimum - 1
            if not value >= minimum:
                kind = "a whole number" if whole else "a number"
                problems.append(f"{name}={raw!r} is not {kind} of at least {minimum:g}")
                return default
            return value

        output = text(OUTPUT) or "auto"
        if output not in STRUCTURED_OUTPUTS:
            problems.append(f"{OUTPUT}={output!r} is not one of {', '.join(STRUCTURED_OUTPUTS)}")
            output = "auto"
        catalog = text(CATALOG) or "auto"
        if catalog not in CATALOG_FORMS:
            problems.append(f"{CATALOG}={catalog!r} is not one of {', '.join(CATALOG_FORMS)}")
            catalog = "auto"
        temperature = text(TEMPERATURE)
        return cls(
            model=text(MODEL),
            base_url=text(BASE_URL),
            api_key=text(API_KEY) or text(FALLBACK_API_KEY),
            answer_model=text(ANSWER_MODEL),
            timeout_seconds=number(TIMEOUT, cls.timeout_seconds, whole=False, minimum=0.001),
            max_retries=int(number(MAX_RETRIES, cls.max_retries, whole=True, minimum=0)),
            max_tokens=int(number(MAX_TOKENS, cls.max_tokens, whole=True, minimum=1)),
            structured_output=output,  # type: ignore[arg-type]
            max_tool_rounds=int(
                number(MAX_TOOL_ROUNDS, cls.max_tool_rounds, whole=True, minimum=0)
            ),
            temperature=(
                None if temperature is None else number(TEMPERATURE, 0.0, whole=False, minimum=0.0)
            ),
            history_turns=int(number(HISTORY_TURNS, cls.history_turns, whole=True, minimum=0)),
            catalog=catalog,  # type: ignore[arg-type]
            problems=tuple(problems),
        )

    def invalid(self) -> str | None:
        """What is wrong with the settings given, or None: a process refuses to start on it."""
        if self.problems:
            return "the agent's configuration is invalid: " + "; ".join(self.problems)
        return None

    def unavailable(self) -> str | None:
        """Why the agent cannot run with this configuration, or None when it can."""
        invalid = self.invalid()
        if invalid is not None:
            return invalid
        if not self.model:
            return f"the agent has no model configured: {HOW_TO_CONFIGURE}"
        if not self.base_url and not self.api_key:
            return (
                f"the agent has no API key for OpenAI: set {API_KEY} (or {FALLBACK_API_KEY}), "
                f"or set {BASE_URL} to another OpenAI-compatible server"
            )
        return None

    def require(self) -> None:
        reason = self.unavailable()
        if reason is not None:
            raise GatewayError("unavailable", reason)

    @property
    def key(self) -> str:
        return self.api_key or NO_KEY

    @property
    def answerer_model(self) -> str:
        return self.answer_model or self.model or ""
