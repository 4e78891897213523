"""Caps on what one program, and one principal per minute, may do (P6). All configurable:
each field is a SLUICE_CAP_<FIELD> setting (`gateway/settings.py`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from application.settings_error import SettingsError
from application.use_case import UseCase
from domain.amounts import CENT, MAX_SUM, fmt
from gateway.core.catalog import UnknownUseCaseError
from gateway.core.program.limits import ProgramLimits

ENV_PREFIX = "SLUICE_CAP_"
PER_USE_CASE = "max_calls_per_use_case"


@dataclass(frozen=True)
class Caps:
    max_calls: int = 50
    # None: each use case's own `max_calls`. A map (by use-case name) replaces them all;
    # a use case it does not name has no cap of its own.
    max_calls_per_use_case: Mapping[str, int] | None = None
    max_amount_per_program: Decimal = Decimal("10000.00")
    max_run_seconds: float = 2.0
    max_memory_bytes: int = 32 * 2**20
    max_program_bytes: int = 20_000
    programs_per_minute: int = 30
    # Programs of one principal running at once, in one gateway process (counted there, as
    # its sandbox workers are). Below SLUICE_SANDBOX_WORKERS (default 2), one principal
    # never holds every worker: one more program of theirs is refused at once (429).
    programs_at_once: int = 1
    requests_per_minute: int = 600
    proposal_ttl_seconds: int = 15 * 60
    complete_reads_at_once: bool = True
    # MCP over HTTP: sessions open at once, and the seconds one may sit idle (no request in
    # flight, no open stream) before it is closed. A session a client never ends holds
    # about 40 KB until then; these bound that memory to about 40 MB. One principal may
    # hold only so many of them, so one key cannot use up the rest (counted per process).
    mcp_sessions: int = 1000
    mcp_sessions_per_principal: int = 10
    mcp_session_idle_seconds: int = 5 * 60

    def calls_allowed(self, use_case: type[UseCase[Any]]) -> int | None:
        """At most this many calls of `use_case` in one program; None: no cap of its own."""
        if self.max_calls_per_use_case is None:
            return use_case.max_calls
        return self.max_calls_per_use_case.get(use_case.name)

    def program_limits(self) -> ProgramLimits:
        return ProgramLimits(
            max_source_bytes=self.max_program_bytes,
            max_calls=self.max_calls,
            wall_seconds=self.max_run_seconds,
            max_memory_bytes=self.max_memory_bytes,
        )


def parse_cap(name: str, raw: str) -> Any:
    """The value of SLUICE_CAP_<NAME> (`name` a field of Caps), or a SettingsError naming it.

    SLUICE_CAP_MAX_CALLS_PER_USE_CASE takes `transfer=10,withdraw=5`; which names are use
    cases is checked where the catalog is known (`check_use_cases`)."""
    if name == PER_USE_CASE:
        return _per_use_case(raw)
    return _parse(name, raw, getattr(Caps, name))


def check_use_cases(per_use_case: Mapping[str, int], use_cases: Collection[str]) -> None:
    """A SettingsError naming SLUICE_CAP_MAX_CALLS_PER_USE_CASE if it names no use case."""
    unknown = [name for name in per_use_case if name not in use_cases]
    if unknown:
        raw = ",".join(f"{name}={calls}" for name, calls in per_use_case.items())
        raise SettingsError(
            f"{ENV_PREFIX + PER_USE_CASE.upper()}={raw!r}: {UnknownUseCaseError(unknown[0])} "
            f"(the use cases: {', '.join(use_cases)})"
        )


def _per_use_case(raw: str) -> dict[str, int]:
    variable = ENV_PREFIX + PER_USE_CASE.upper()
    try:
        pairs = [item.split("=", 1) for item in raw.split(",") if item.strip()]
        parsed = {key.strip(): int(value) for key, value in pairs}
        if any(v <= 0 for v in parsed.values()):
            raise ValueError(raw)
    except ValueError:
        raise SettingsError(f"{variable}={raw!r} is not a valid value for this cap") from None
    return parsed


def _parse(name: str, raw: str, default: Any) -> Any:
    variable = ENV_PREFIX + name.upper()
    try:
        if isinstance(default, bool):
            if raw.lower() not in {"1", "0", "true", "false", "yes", "no"}:
                raise ValueError(raw)
            return raw.lower() in {"1", "true", "yes"}
        value = type(default)(raw)
    except (ValueError, InvalidOperation):
        raise SettingsError(f"{variable}={raw!r} is not a valid value for this cap") from None
    if isinstance(value, Decimal) and not value.is_finite():
        raise SettingsError(f"{variable}={raw!r} is not a finite number")
    if value <= 0:
        raise SettingsError(f"{variable}={raw!r}: a cap must be positive")
    if isinstance(value, Decimal):
        return _money_cap(variable, raw, value)
    return value


def _money_cap(variable: str, raw: str, value: Decimal) -> Decimal:
    # Any cap on money is shown and compared as an amount: two places, and no more than
    # the most any sum of money may reach in any domain (`domain.amounts.MAX_SUM`, 10^15:
    # the bank's most an account holds), so a higher one could not be reached anyway.
    if value > MAX_SUM:
        raise SettingsError(f"{variable}={raw!r}: at most {fmt(MAX_SUM)}")
    if value != value.quantize(CENT):
        raise SettingsError(f"{variable}={raw!r}: at most 2 decimal places")
    return value.quantize(CENT)
