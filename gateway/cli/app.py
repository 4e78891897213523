"""`sluice`: the catalog, programs and the demo ledger from a terminal."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from application.demo import seed_demo
from application.store_config import StoreConfigError
from gateway.bootstrap import Sluice
from gateway.catalog import UnknownUseCaseError
from gateway.cli.render import show_outcome, show_preview
from gateway.program.outcome import Outcome
from gateway.program.runner import Preview

app = typer.Typer(
    name="sluice",
    help="Sluice: business use cases that are also an agent's tools, behind a hardened gateway.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
USAGE_ERROR = 2


def _open() -> Sluice:
    try:
        return Sluice()
    except StoreConfigError as error:
        _usage_error(str(error))


def _usage_error(message: str) -> NoReturn:
    Console(stderr=True).print(f"[red]error:[/] {message}", highlight=False)
    raise typer.Exit(USAGE_ERROR)


@app.command()
def directory() -> None:
    """Print the directory: one line per use case."""
    with _open() as sluice:
        typer.echo(sluice.catalog.directory(), nl=False)


@app.command()
def actions(names: Annotated[list[str], typer.Argument(help="Use case names.")]) -> None:
    """Print the full sheets of the named use cases as a JSON array."""
    with _open() as sluice:
        try:
            sheets = sluice.catalog.sheets(names)
        except UnknownUseCaseError as error:
            _usage_error(f"{error}; the use cases are {', '.join(sluice.catalog.names)}")
        typer.echo(json.dumps(sheets, indent=2, ensure_ascii=False))


@app.command()
def run(
    file: Annotated[Path, typer.Argument(help="The program: a Python file.")],
    as_: Annotated[str, typer.Option("--as", help="Who runs the program.")],
    yes: Annotated[bool, typer.Option("--yes", help="Commit without asking.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Check a program, preview its events, ask for confirmation, then commit all or nothing."""
    try:
        source = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        _usage_error(f"cannot read program {file}: {getattr(error, 'strerror', None) or error}")
    human = Console(stderr=as_json)
    with _open() as sluice:
        preview = sluice.runner.preview(source)
        show_preview(human, preview)
        outcome = _decide(sluice, preview, yes=yes, err=as_json)
    if as_json:
        typer.echo(json.dumps(outcome.to_json(), ensure_ascii=False))
    else:
        show_outcome(human, outcome)
    raise typer.Exit(0 if outcome.status == "committed" else 1)


def _decide(sluice: Sluice, preview: Preview, *, yes: bool, err: bool) -> Outcome:
    if not preview.ok or not preview.writes:
        return sluice.runner.commit(preview)
    if not yes:
        try:
            confirmed = typer.confirm(
                f"Commit these {len(preview.events)} events?", default=False, err=err
            )
        except typer.Abort:
            confirmed = False
        if not confirmed:
            return Outcome(status="declined", result=preview.result)
    return sluice.runner.commit(preview)


@app.command()
def demo() -> None:
    """Seed the demo ledger (alice 100.00, bob, carla) where it is absent."""
    with _open() as sluice:
        opened = seed_demo(sluice.ledger)
        where = sluice.database_url
    if opened:
        typer.echo(f"Opened demo accounts {', '.join(opened)} in {where}")
    else:
        typer.echo(f"The demo accounts are already in {where}; nothing changed")


@app.command()
def shell(as_: Annotated[str, typer.Option("--as", help="Who runs the programs.")]) -> None:
    """Type programs, see their previews, confirm them: an interactive session."""
    from gateway.cli.shell import interactive_session

    with _open() as sluice:
        interactive_session(sluice, principal=as_, console=Console())


def main() -> None:
    # click maps usage errors to exit code 2 itself; the rest is ours.
    sys.exit(app())
