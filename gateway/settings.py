"""Every SLUICE_* setting, declared once: its type, its default and what it means.

The settings are read once, when a process starts (`load_settings`: the CLI's commands,
`sluice serve`, `sluice mcp`, or `Sluice()` built without them), and passed down from
there; nothing else in Sluice reads a SLUICE_* variable. A field here is the variable
`SLUICE_` + its name in capitals (`cap_max_calls` is SLUICE_CAP_MAX_CALLS); one field,
`openai_api_key`, reads OPENAI_API_KEY, the fallback of SLUICE_LLM_API_KEY. A variable set
to an empty string counts as unset.

A value Sluice cannot use is refused with one SettingsError, whose message names the
variable and says why (the CLI exits 2 with it). `sluice settings` prints the effective
settings, secrets shown as `***` (`shown`).

The library is pydantic-settings: its BaseSettings reads the process environment; a test
hands a mapping of its own to `load_settings` instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, ValidationError, model_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)
from pydantic_settings import SettingsError as SourceError

from application import domains
from application.read_models.queries import WAIT_SECONDS
from application.settings_error import SettingsError
from application.store_config import (
    DATABASE_URL_VARIABLE,
    READ_DATABASE_URL_VARIABLE,
    default_database_url,
    eventsourcing_env,
    redacted,
    standby_env,
)
from gateway.agent.catalog_form import CatalogForm
from gateway.agent.config import AgentConfig, StructuredOutput
from gateway.core.policy.caps import Caps, check_use_cases, parse_cap
from gateway.core.policy.trusted_clients import parse_trusted_clients
from gateway.core.program.pool_settings import (
    DEFAULT_WAIT_SECONDS,
    DEFAULT_WORKERS,
    PoolSettings,
    parse_wait,
    parse_workers,
)
from gateway.logs.install import LOG_FORMAT_VARIABLE, LOG_LEVEL_VARIABLE, parse_format, parse_level
from gateway.notify.settings import NotifySettings

PREFIX = "SLUICE_"
# The one variable without the prefix: OpenAI's own, the fallback of SLUICE_LLM_API_KEY.
OPENAI_API_KEY = "OPENAI_API_KEY"
DEFAULT_MAX_BODY_BYTES = 64 * 1024
# Shown instead of a secret's value (and instead of a password in a database URL).
HIDDEN = "***"


def variable(field: str) -> str:
    """The environment variable of a field of Settings."""
    return OPENAI_API_KEY if field == "openai_api_key" else PREFIX + field.upper()


def _refused(field: str, raw: object, reason: str) -> SettingsError:
    return SettingsError(f"{variable(field)}={raw!r}{reason}")


def _text(raw: Any) -> Any:
    """A text setting without the blanks around it; blank is unset."""
    if isinstance(raw, str):
        return raw.strip() or None
    return raw


def _parsed_by(parse: Callable[[str], Any]) -> BeforeValidator:
    """A setting parsed from its text by `parse`, which raises a SettingsError naming it."""
    return BeforeValidator(lambda raw: parse(raw) if isinstance(raw, str) else raw)


def _cap(name: str) -> BeforeValidator:
    return _parsed_by(lambda raw: parse_cap(name, raw))


def _number(field: str, *, whole: bool, minimum: float) -> BeforeValidator:
    """A number of at least `minimum`, refused as SLUICE_LLM_* always said it."""

    def parse(raw: str) -> float:
        try:
            value = int(raw.strip()) if whole else float(raw.strip())
        except ValueError:
            value = math.nan
        if not value >= minimum:
            kind = "a whole number" if whole else "a number"
            raise _refused(field, raw, f" is not {kind} of at least {minimum:g}")
        return value

    return _parsed_by(parse)


def _choice(field: str, choices: tuple[str, ...]) -> BeforeValidator:
    def parse(raw: str) -> str:
        if raw.strip() not in choices:
            raise _refused(field, raw, f" is not one of {', '.join(choices)}")
        return raw.strip()

    return _parsed_by(parse)


def _read_wait(raw: str) -> float:
    try:
        seconds = float(raw.strip())
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or not 0 < seconds <= 60:
        raise _refused(
            "read_wait_seconds",
            raw,
            ": the wait for the read models must be a number of seconds above 0 and at most "
            "60 (e.g. 5)",
        )
    return seconds


def _database_url(raw: str) -> str:
    url = raw.strip()
    eventsourcing_env(url, {})  # a SettingsError naming SLUICE_DATABASE_URL if Sluice cannot
    return url


def _elicitation(raw: str) -> str:
    if raw.strip().lower() not in ("on", "off"):
        raise _refused("mcp_elicitation", raw, ": use on or off")
    return raw.strip().lower()


def _state_keys(raw: str) -> tuple[bytes, ...]:
    from gateway.interfaces.mcp.state_keys import parse_keys  # the MCP SDK: only when set

    return tuple(parse_keys(raw))


def _serve_cpu(raw: str) -> int:
    try:
        cpu = int(raw.strip())
    except ValueError:
        cpu = -1
    if cpu < 0:
        raise _refused("serve_cpu", raw, ": a CPU is a whole number, at least 0 (e.g. 0)")
    return cpu


def _max_body_bytes(raw: str) -> int:
    try:
        size = int(raw.strip())
    except ValueError:
        size = 0
    if size < 1:
        raise _refused(
            "max_body_bytes", raw, ": a size in bytes is a whole number, at least 1 (e.g. 65536)"
        )
    return size


def _domain(raw: str) -> str:
    name = raw.strip()
    try:
        domains.load(name)
    except SettingsError as unknown:
        raise _refused("domain", raw, f": {unknown}") from None
    return name


def _log_level(raw: str) -> str:
    parse_level(raw, LOG_LEVEL_VARIABLE)
    return raw.strip().upper()


_CAPS = Caps()
_AGENT = AgentConfig()
Secret = Annotated[str | None, BeforeValidator(_text)]
Text = Annotated[str | None, BeforeValidator(_text)]


class Settings(BaseSettings):
    """The effective settings of a process; frozen once read."""

    model_config = SettingsConfigDict(
        env_prefix=PREFIX,
        env_ignore_empty=True,
        extra="ignore",
        frozen=True,
        populate_by_name=True,
        arbitrary_types_allowed=True,
    )

    # The business served.
    domain: Annotated[str, _parsed_by(_domain)] = Field(
        default=domains.DEFAULT,
        description="The business domain served: its use cases, directory and demo data, "
        "by the name it is installed under (`sluice domains` lists them); --domain wins.",
    )
    # The store.
    database_url: Annotated[str | None, _parsed_by(_database_url)] = Field(
        default=None,
        description="The store: sqlite:///RELATIVE/PATH.db, sqlite:////ABSOLUTE/PATH.db, "
        "memory:// or postgresql://USER@HOST:PORT/DBNAME (several hosts, comma-separated); "
        "unset: ./var/sluice.db in the current folder.",
    )
    read_database_url: Text = Field(
        default=None,
        description="A hot standby of the PostgreSQL primary, which the read endpoints read "
        "(the same forms as a PostgreSQL SLUICE_DATABASE_URL); unset: the primary.",
    )
    read_wait_seconds: Annotated[float, _parsed_by(_read_wait)] = Field(
        default=WAIT_SECONDS,
        description="How long a read waits for the read models (or the standby) to reach "
        "the position it must see, in seconds: above 0, at most 60.",
    )
    # Caps on a program, and on one principal per minute (P6).
    cap_max_calls: Annotated[int, _cap("max_calls")] = Field(
        default=_CAPS.max_calls, description="Use-case calls one program may make in all."
    )
    cap_max_calls_per_use_case: Annotated[
        dict[str, int] | None, NoDecode, _cap("max_calls_per_use_case")
    ] = Field(
        default=None,  # each use case's own
        description="Calls of each use case one program may make, e.g. transfer=10,withdraw=5: "
        "replaces every use case's own cap; unset, each use case's own.",
    )
    cap_max_amount_per_program: Annotated[Decimal, _cap("max_amount_per_program")] = Field(
        default=_CAPS.max_amount_per_program,
        description="The most money one program may move, in all (two decimal places).",
    )
    cap_max_run_seconds: Annotated[float, _cap("max_run_seconds")] = Field(
        default=_CAPS.max_run_seconds, description="A program's time in the sandbox, in seconds."
    )
    cap_max_memory_bytes: Annotated[int, _cap("max_memory_bytes")] = Field(
        default=_CAPS.max_memory_bytes, description="A program's memory in the sandbox, in bytes."
    )
    cap_max_program_bytes: Annotated[int, _cap("max_program_bytes")] = Field(
        default=_CAPS.max_program_bytes, description="The size of a program's source, in bytes."
    )
    cap_programs_per_minute: Annotated[int, _cap("programs_per_minute")] = Field(
        default=_CAPS.programs_per_minute, description="Programs one principal may run per minute."
    )
    cap_programs_at_once: Annotated[int, _cap("programs_at_once")] = Field(
        default=_CAPS.programs_at_once,
        description="Programs of one principal running at once, in one process.",
    )
    cap_requests_per_minute: Annotated[int, _cap("requests_per_minute")] = Field(
        default=_CAPS.requests_per_minute,
        description="Requests one principal may make per minute (HTTP API and /mcp).",
    )
    cap_proposal_ttl_seconds: Annotated[int, _cap("proposal_ttl_seconds")] = Field(
        default=_CAPS.proposal_ttl_seconds,
        description="How long a proposal may be confirmed, in seconds.",
    )
    cap_complete_reads_at_once: Annotated[bool, _cap("complete_reads_at_once")] = Field(
        default=_CAPS.complete_reads_at_once,
        description="Run a read-only program at once, without a confirmation (true or false).",
    )
    cap_mcp_sessions: Annotated[int, _cap("mcp_sessions")] = Field(
        default=_CAPS.mcp_sessions,
        description="MCP sessions open at once over HTTP, in one process.",
    )
    cap_mcp_sessions_per_principal: Annotated[int, _cap("mcp_sessions_per_principal")] = Field(
        default=_CAPS.mcp_sessions_per_principal,
        description="MCP sessions one principal may hold open at once, in one process.",
    )
    cap_mcp_session_idle_seconds: Annotated[int, _cap("mcp_session_idle_seconds")] = Field(
        default=_CAPS.mcp_session_idle_seconds,
        description="Seconds an MCP session may sit idle before it is closed.",
    )
    # The sandbox's workers.
    sandbox_workers: Annotated[int, _parsed_by(parse_workers)] = Field(
        default=DEFAULT_WORKERS, description="Sandbox workers one process keeps (at least 1)."
    )
    sandbox_wait_seconds: Annotated[float, _parsed_by(parse_wait)] = Field(
        default=DEFAULT_WAIT_SECONDS,
        description="How long a program may wait for a free sandbox worker, in seconds; "
        "past it the request is answered unavailable (retryable).",
    )
    # The HTTP API and MCP.
    max_body_bytes: Annotated[int, _parsed_by(_max_body_bytes)] = Field(
        default=DEFAULT_MAX_BODY_BYTES, description="The largest request body the HTTP API reads."
    )
    console_url: Text = Field(
        default=None,
        description="Where people review proposals (the web console of `sluice serve`): the "
        "link `sluice mcp` and the webhook give; `sluice mcp --console-url` wins.",
    )
    api_key: Secret = Field(
        default=None, description="The key whose principal `sluice mcp` acts as (a secret)."
    )
    mcp_trusted_clients: Annotated[frozenset[str], NoDecode, _parsed_by(parse_trusted_clients)] = (
        Field(
            default=frozenset(),
            description="Principals whose MCP clients may confirm by a form, comma-separated; "
            "unset: none (a person confirms on the web console).",
        )
    )
    mcp_state_keys: Annotated[tuple[bytes, ...], NoDecode, _parsed_by(_state_keys)] = Field(
        default=(),
        description="Keys sealing MCP's requestState, comma-separated (base64url or hex, 32 "
        "bytes at least; the first seals, all open); unset: a random key per process. "
        "A secret.",
    )
    mcp_elicitation: Annotated[Literal["on", "off"], _parsed_by(_elicitation)] = Field(
        default="on",
        description="on: /mcp sends the person each proposal's review page through the "
        "client; off: it does not.",
    )
    # The webhook told of proposals waiting for a person.
    notify_url: Text = Field(
        default=None, description="The webhook (http:// or https://) told of waiting proposals."
    )
    notify_secret: Secret = Field(
        default=None,
        description="The webhook's signing secret (HMAC-SHA256), at least 16 characters; "
        "needed with SLUICE_NOTIFY_URL. A secret.",
    )
    # Logs and the process.
    log_level: Annotated[str | None, _parsed_by(_log_level)] = Field(
        default=None,
        description="DEBUG, INFO, WARNING, ERROR or CRITICAL; unset: INFO for `sluice serve` "
        "and `sluice project`, WARNING for `sluice mcp`; --log-level wins.",
    )
    log_format: Annotated[
        Literal["plain", "json"], _parsed_by(lambda raw: parse_format(raw, LOG_FORMAT_VARIABLE))
    ] = Field(
        default="plain", description="plain or json (one object per line); --log-format wins."
    )
    serve_cpu: Annotated[int | None, _parsed_by(_serve_cpu)] = Field(
        default=None,
        description="Run `sluice serve`, its threads and sandbox workers on this CPU only; "
        "--cpu wins.",
    )
    # The agent's model (any OpenAI-compatible endpoint).
    llm_base_url: Text = Field(
        default=None, description="An OpenAI-compatible server, e.g. http://localhost:11434/v1."
    )
    llm_model: Text = Field(default=None, description="The planner's model; unset: no agent.")
    llm_answer_model: Text = Field(
        default=None, description="The answerer's model; unset: the planner's."
    )
    llm_api_key: Secret = Field(default=None, description="The model's API key (a secret).")
    openai_api_key: Secret = Field(
        default=None,
        validation_alias=OPENAI_API_KEY,
        description="OpenAI's key, used when SLUICE_LLM_API_KEY is unset (a secret).",
    )
    llm_timeout_seconds: Annotated[
        float, _number("llm_timeout_seconds", whole=False, minimum=0.001)
    ] = Field(default=_AGENT.timeout_seconds, description="A model call's time, in seconds.")
    llm_max_retries: Annotated[int, _number("llm_max_retries", whole=True, minimum=0)] = Field(
        default=_AGENT.max_retries, description="Retries of a call that failed at once (429, 5xx)."
    )
    llm_max_tokens: Annotated[int, _number("llm_max_tokens", whole=True, minimum=1)] = Field(
        default=_AGENT.max_tokens, description="The bound on each reply of the model, in tokens."
    )
    llm_structured_output: Annotated[
        StructuredOutput,
        _choice("llm_structured_output", ("auto", "json_schema", "text")),
    ] = Field(
        default=_AGENT.structured_output,
        description="json_schema (the provider enforces it), text (parsed from the reply) or "
        "auto (json_schema, else text).",
    )
    llm_max_tool_rounds: Annotated[int, _number("llm_max_tool_rounds", whole=True, minimum=0)] = (
        Field(
            default=_AGENT.max_tool_rounds, description="Sheet requests before the planner replies."
        )
    )
    llm_temperature: Annotated[
        float | None, _number("llm_temperature", whole=False, minimum=0.0)
    ] = Field(
        default=_AGENT.temperature, description="The sampling temperature; unset: the provider's."
    )
    llm_history_turns: Annotated[int, _number("llm_history_turns", whole=True, minimum=0)] = Field(
        default=_AGENT.history_turns, description="Earlier turns of a conversation shown."
    )
    llm_catalog: Annotated[CatalogForm, _choice("llm_catalog", ("auto", "directory", "stubs"))] = (
        Field(
            default=_AGENT.catalog,
            description="What the planner is shown: directory (a line per use case), stubs "
            "(typed stubs and examples) or auto (stubs while they fit).",
        )
    )

    @model_validator(mode="after")
    def _together(self) -> Settings:
        NotifySettings.checked(self.notify_url, self.notify_secret)
        if self.read_database_url is not None and self.database_url is not None:
            standby_env(self.read_database_url, self.database_url, {})
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The process environment alone: no .env file, no secrets directory.
        return (init_settings, env_settings)

    # What the rest of Sluice is handed, built from the settings.

    def caps(self, use_cases: Collection[str] | None = None) -> Caps:
        """The caps; given `use_cases` (the catalog's names), a cap per use case naming none
        of them is refused."""
        if self.cap_max_calls_per_use_case is not None and use_cases is not None:
            check_use_cases(self.cap_max_calls_per_use_case, use_cases)
        return Caps(**{name: getattr(self, "cap_" + name) for name in Caps.__dataclass_fields__})

    @property
    def pool(self) -> PoolSettings:
        return PoolSettings(workers=self.sandbox_workers, wait_seconds=self.sandbox_wait_seconds)

    @property
    def notify(self) -> NotifySettings | None:
        return NotifySettings.checked(self.notify_url, self.notify_secret)

    @property
    def agent(self) -> AgentConfig:
        return AgentConfig.from_settings(self)

    @property
    def effective_database_url(self) -> str:
        """SLUICE_DATABASE_URL, or the default it stands for: ./var/sluice.db here."""
        return self.database_url or default_database_url()


class _Given(Settings):
    """Settings read from a mapping handed to `load_settings`, not the process's."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)


SECRETS = frozenset({"api_key", "llm_api_key", "openai_api_key", "notify_secret", "mcp_state_keys"})
DATABASE_URLS = frozenset({"database_url", "read_database_url"})


def load_settings(
    environ: Mapping[str, str] | None = None, *, domain: str | None = None
) -> Settings:
    """The settings of the process environment (or of `environ`), `domain` (a command's
    `--domain`) over SLUICE_DOMAIN, or a SettingsError naming the first variable whose value
    Sluice cannot use, and why."""
    chosen: dict[str, Any] = {} if domain is None else {"domain": domain}
    try:
        if environ is None:
            return Settings(**chosen)
        given: dict[str, Any] = {
            name: environ[variable(name)]
            for name in Settings.model_fields
            if environ.get(variable(name), "") != ""
        } | chosen
        read = _Given(**given)
        # Validated already: the same class whichever way the settings were read.
        return Settings.model_construct(read.model_fields_set, **dict(read))
    except ValidationError as invalid:
        raise _settings_error(invalid) from None
    except SourceError as unread:  # the library could not read a variable at all
        raise SettingsError(str(unread)) from None


def _settings_error(invalid: ValidationError) -> SettingsError:
    error = invalid.errors()[0]
    cause = (error.get("ctx") or {}).get("error")
    if isinstance(cause, SettingsError):
        return cause
    field = str(error["loc"][0]) if error["loc"] else ""
    if field not in Settings.model_fields:  # an alias (OPENAI_API_KEY)
        field = next((name for name in Settings.model_fields if variable(name) == field), field)
    name = variable(field) if field else "a setting"
    if field in SECRETS:
        return SettingsError(f"{name}: {error['msg']}")
    return SettingsError(f"{name}={error['input']!r}: {error['msg']}")


def shown(settings: Settings) -> dict[str, str]:
    """Each variable and its effective value as text, secrets as `***` (unset: empty),
    passwords of database URLs as `***`: what `sluice settings` prints."""
    values: dict[str, str] = {}
    for name in Settings.model_fields:
        value = getattr(settings, name)
        if name == "database_url":
            value = settings.effective_database_url
        values[variable(name)] = _text_of(name, value)
    return values


def _text_of(name: str, value: Any) -> str:
    if value is None or value in ((), frozenset()):
        return ""
    if name in SECRETS:
        return HIDDEN
    if name in DATABASE_URLS:
        return redacted(str(value))
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return ",".join(f"{key}={calls}" for key, calls in value.items())
    if isinstance(value, frozenset):
        return ",".join(sorted(value))
    return str(value)


def descriptions() -> dict[str, str]:
    """Each variable and what it means."""
    return {
        variable(name): field.description or "" for name, field in Settings.model_fields.items()
    }


__all__ = [
    "DATABASE_URL_VARIABLE",
    "READ_DATABASE_URL_VARIABLE",
    "Settings",
    "SettingsError",
    "load_settings",
    "shown",
    "variable",
]
