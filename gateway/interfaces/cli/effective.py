"""`sluice settings`: the effective settings of this environment, secrets hidden.

One `NAME=value` a line, in the order `gateway/settings.py` declares them (greppable, and
the shape of an environment file); an unset setting without a default prints `NAME=`.
Secrets (API keys, the webhook's secret, MCP's state keys) print `***` when set, and a
database URL's password prints `***`. A value Sluice cannot use is a usage error (exit 2)
naming the variable, as at the start of every other command.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from application.inert_text import inert, inert_json
from gateway.interfaces.cli.opening import read_settings
from gateway.settings import descriptions, shown


def settings(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object: each variable and its value.")
    ] = False,
    describe: Annotated[
        bool, typer.Option("--describe", help="Say what each setting means, in a # line above it.")
    ] = False,
) -> None:
    """Print the effective settings (every SLUICE_* variable), secrets as ***."""
    values = shown(read_settings())
    if as_json:
        typer.echo(inert_json(json.dumps(values, ensure_ascii=False, indent=2)))
        return
    meanings = descriptions()
    for name, value in values.items():
        if describe:
            typer.echo(f"# {meanings[name]}")
        typer.echo(f"{name}={inert(value)}")
