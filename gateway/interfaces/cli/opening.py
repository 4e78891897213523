"""How every command opens the system, and how it refuses: one line on stderr."""

from __future__ import annotations

from contextvars import ContextVar
from typing import NoReturn

import typer
from rich.console import Console
from rich.text import Text

from application.inert_text import inert
from gateway.bootstrap import Sluice
from gateway.interfaces.cli.store_check import missing_store
from gateway.logs.redact import redact
from gateway.settings import Settings, SettingsError, load_settings

USAGE_ERROR = 2
# This invocation's `--domain` (None: SLUICE_DOMAIN's), set as its options are read.
_CHOSEN_DOMAIN: ContextVar[str | None] = ContextVar("chosen_domain", default=None)


def choose_domain(name: str | None) -> None:
    """The domain this invocation's commands serve (`--domain`), over SLUICE_DOMAIN."""
    _CHOSEN_DOMAIN.set(name)


def read_settings() -> Settings:
    """The settings of this command, read once at its start (its `--domain` over
    SLUICE_DOMAIN); a value Sluice cannot use is a usage error naming the variable and why."""
    try:
        return load_settings(domain=_CHOSEN_DOMAIN.get())
    except SettingsError as refused:
        usage_error(str(refused))


def open_sluice(*, expect_data: bool = True, settings: Settings | None = None) -> Sluice:
    """The system on its store, wired from `settings` (read now when not given);
    `expect_data` refuses a store that does not exist yet rather than create an empty one
    (a command run in the wrong folder)."""
    settings = read_settings() if settings is None else settings
    missing = missing_store(settings.database_url) if expect_data else None
    if missing:
        usage_error(missing)
    try:
        return Sluice(settings=settings)
    except SettingsError as refused:
        usage_error(str(refused))


def usage_error(message: str) -> NoReturn:
    error(message)
    raise typer.Exit(USAGE_ERROR)


def error(message: str) -> None:
    """One line on stderr; the message may quote what the user typed, so it is data."""
    # An error of the store may quote its address, a password with it: never shown.
    Console(stderr=True).print(Text.assemble(("error:", "red"), " ", inert(redact(message))))
