"""Where the agent's model is: the SLUICE_LLM_* settings, never required by the rest of Sluice.

Any OpenAI-compatible endpoint works (OpenAI, vLLM, Ollama, llama.cpp's server). A missing
model makes the agent unavailable, with a message naming the variables to set, while
everything else in Sluice keeps working. A setting given with a bad value is a mistake to
fix: like every setting it is refused when the settings are read (`gateway/settings.py`),
and the command stops (exit 2, naming it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

from gateway.agent.catalog_form import CatalogForm
from gateway.core.errors import GatewayError

if TYPE_CHECKING:
    from gateway.settings import Settings

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

    @classmethod
    def from_settings(cls, settings: Settings) -> AgentConfig:
        """The agent's part of the settings (SLUICE_LLM_*, checked when they were read)."""
        return cls(
            model=settings.llm_model,
            base_url=settings.llm_base_url,
            api_key=settings.llm_api_key or settings.openai_api_key,
            answer_model=settings.llm_answer_model,
            timeout_seconds=settings.llm_timeout_seconds,
            max_retries=settings.llm_max_retries,
            max_tokens=settings.llm_max_tokens,
            structured_output=settings.llm_structured_output,
            max_tool_rounds=settings.llm_max_tool_rounds,
            temperature=settings.llm_temperature,
            history_turns=settings.llm_history_turns,
            catalog=settings.llm_catalog,
        )

    def unavailable(self) -> str | None:
        """Why the agent cannot run with this configuration, or None when it can."""
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
