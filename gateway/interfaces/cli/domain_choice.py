"""`--domain NAME`: the business domain a command serves, and `sluice domains`.

Every command that opens a store or serves takes `--domain` (so does `sluice` itself,
before the command): the app's group (`DomainGroup`) adds the option to each command
rather than every signature repeating it, and a command reads it where it reads its
settings (`opening.read_settings`), so none can forget it. An unknown name is refused
before the command runs, naming the installed domains: nothing is opened or changed.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from application import domains
from application.settings_error import SettingsError
from gateway.interfaces.cli.opening import choose_domain, usage_error

OPTION = "--domain"
# Commands that open no store and serve no domain.
WITHOUT_DOMAIN = frozenset({"domains"})
HELP = "The business domain to serve (`sluice domains` lists them); SLUICE_DOMAIN otherwise."


def _checked(name: str | None) -> str | None:
    if name is not None:
        try:
            domains.load(name)
        except SettingsError as unknown:
            usage_error(f"{OPTION} {name}: {unknown}")
    return name


def _given_to_sluice(name: str | None) -> str | None:
    """`sluice --domain NAME COMMAND`: stands for this invocation (None: none chosen)."""
    choose_domain(_checked(name))
    return name


def _given_to_command(name: str | None) -> str | None:
    """`sluice COMMAND --domain NAME`: wins over one given before the command."""
    if _checked(name) is not None:
        choose_domain(name)
    return name


# The option of `sluice` itself, before the command (see app.py).
SluiceDomainOption = Annotated[
    str | None,
    typer.Option(OPTION, metavar="NAME", callback=_given_to_sluice, is_eager=True, help=HELP),
]
_CommandDomainOption = Annotated[
    str | None,
    typer.Option(OPTION, metavar="NAME", callback=_given_to_command, is_eager=True, help=HELP),
]


def _domain_option() -> Any:
    """A fresh `--domain` parameter, built by typer itself from a command that takes it."""
    carrier = typer.Typer(add_completion=False)

    @carrier.command()
    def _carrier(domain: _CommandDomainOption = None) -> None:
        del domain  # read by its callback

    (option,) = typer.main.get_command(carrier).params
    option.expose_value = False
    return option


def _add_option(command: Any) -> None:
    subcommands = getattr(command, "commands", None)
    if subcommands is not None:  # a group: principal, key, audit
        for name, subcommand in subcommands.items():
            if name not in WITHOUT_DOMAIN:
                _add_option(subcommand)
    elif not any(OPTION in getattr(param, "opts", ()) for param in command.params):
        command.params.append(_domain_option())


class DomainGroup(TyperGroup):
    """The app's group: each command under it, but `sluice domains`, takes `--domain`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, command in self.commands.items():
            if name not in WITHOUT_DOMAIN:
                _add_option(command)


def list_domains() -> None:
    """List the installed business domains, one name a line."""
    for name in domains.installed():
        typer.echo(name)
