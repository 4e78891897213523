"""How every command opens the system, and how it refuses: one line on stderr."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.text import Text

from application.inert_text import inert
from gateway.bootstrap import CONFIG_ERRORS, Sluice
from gateway.interfaces.cli.store_check import missing_store
from gateway.logs.redact import redact

USAGE_ERROR = 2


def open_sluice(*, expect_data: bool = True) -> Sluice:
    """The system on its store; `expect_data` refuses a store that does not exist yet rather
    than create an empty one (a command run in the wrong folder)."""
    missing = missing_store() if expect_data else None
    if missing:
        usage_error(missing)
    try:
        return Sluice()
    except CONFIG_ERRORS as error:
        usage_error(str(error))


def usage_error(message: str) -> NoReturn:
    error(message)
    raise typer.Exit(USAGE_ERROR)


def error(message: str) -> None:
    """One line on stderr; the message may quote what the user typed, so it is data."""
    # An error of the store may quote its address, a password with it: never shown.
    Console(stderr=True).print(Text.assemble(("error:", "red"), " ", inert(redact(message))))
