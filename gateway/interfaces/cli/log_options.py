"""`--log-level` and `--log-format` of the long-running commands (`sluice serve`,
`sluice project`, `sluice mcp`), read before anything is opened.

An option wins over its variable (SLUICE_LOG_LEVEL, SLUICE_LOG_FORMAT); a value that names
no level or format is a usage error (exit 2) naming the option or the variable.
"""

from __future__ import annotations

import logging
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from application.inert_text import inert
from gateway import logs
from gateway.settings import Settings, SettingsError

USAGE_ERROR = 2

LogLevelOption = Annotated[
    str | None,
    typer.Option(
        "--log-level",
        help="DEBUG, INFO, WARNING, ERROR or CRITICAL (any case); SLUICE_LOG_LEVEL otherwise. "
        "At INFO and DEBUG, one access line per request.",
        show_default=False,
    ),
]
LogFormatOption = Annotated[
    str | None,
    typer.Option(
        "--log-format",
        help="plain (a line a person reads) or json (one JSON object per line); "
        "SLUICE_LOG_FORMAT otherwise, plain by default.",
        show_default=False,
    ),
]


def start_logging(
    level: str | None, log_format: str | None, settings: Settings, default: int = logging.INFO
) -> int:
    """Install Sluice's logging as the options (or their settings) say; the level."""
    level = level if level is not None else settings.log_level
    try:
        chosen = default if level is None else logs.parse_level(level, "--log-level")
        shape = (
            settings.log_format
            if log_format is None
            else logs.parse_format(log_format, "--log-format")
        )
    except SettingsError as error:
        Console(stderr=True).print(Text.assemble(("error:", "red"), " ", inert(str(error))))
        raise typer.Exit(USAGE_ERROR) from None
    logs.install(chosen, log_format=shape)
    return chosen
