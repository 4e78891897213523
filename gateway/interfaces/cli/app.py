"""`sluice`: the catalog, programs, principals and the demo ledger from a terminal."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from eventsourcing.persistence import PersistenceError
from rich.console import Console

from application import principals
from application.principals import PrincipalView
from application.store_config import redacted
from gateway.bootstrap import Sluice
from gateway.core.catalog import UnknownUseCaseError
from gateway.core.errors import GatewayError
from gateway.core.paging import MAX_LIMIT
from gateway.demo import seed
from gateway.interfaces.cli.domain_choice import DomainGroup, SluiceDomainOption, list_domains
from gateway.interfaces.cli.effective import settings
from gateway.interfaces.cli.flow import decide, submit
from gateway.interfaces.cli.inbox import list_proposals
from gateway.interfaces.cli.keys import key_app, principal_app
from gateway.interfaces.cli.opening import error as _error
from gateway.interfaces.cli.opening import open_sluice as _open
from gateway.interfaces.cli.opening import usage_error as _usage_error
from gateway.interfaces.cli.operate import audit_app, events, export, project, replay
from gateway.interfaces.cli.render import as_json, show_outcome
from gateway.interfaces.cli.report import RunReport
from gateway.interfaces.cli.run_ids import RunIdError, resolve_run_id
from gateway.interfaces.cli.serving import mcp, print_demo_keys, serve
from gateway.interfaces.cli.store_check import store_note

app = typer.Typer(
    name="sluice",
    help="Sluice: business use cases that are also an agent's tools, behind a hardened gateway.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=DomainGroup,
)


def _version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version

        typer.echo(f"sluice {version('sluice')}")
        raise typer.Exit(0)


@app.callback()
def _options(
    _: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
    domain: SluiceDomainOption = None,
) -> None:
    """Sluice: business use cases that are also an agent's tools, behind a hardened gateway."""
    del domain  # read by its callback, for the command that follows


app.add_typer(principal_app, name="principal")
app.add_typer(key_app, name="key")
app.add_typer(audit_app, name="audit")
app.command()(replay)
app.command()(project)
app.command()(events)
app.command()(export)
app.command()(serve)
app.command()(mcp)
app.command()(settings)
app.command(name="domains")(list_domains)

KeyOption = Annotated[str | None, typer.Option("--key", help="The principal's API key.")]
AsOption = Annotated[
    str | None, typer.Option("--as", help="Act as this demo principal (its demo key).")
]


def _principal(sluice: Sluice, key: str | None, as_: str | None) -> PrincipalView:
    if key and as_:
        _usage_error("give --key or --as, not both")
    if not key and not as_:
        _usage_error("say who acts: --key KEY, or --as NAME for a demo principal")
    try:
        principal: PrincipalView = sluice.gateway.authenticate(
            key or principals.demo_key(str(as_)), "cli"
        )
    except GatewayError as refused:
        if as_:
            _usage_error(
                f"--as {as_}: no demo principal {as_} in this store (run `sluice demo`, or "
                f"use --key; {store_note(sluice)})"
            )
        _usage_error(f"--key: {refused} ({store_note(sluice)})")
    return principal


@app.command()
def directory(key: KeyOption = None, as_: AsOption = None) -> None:
    """Print the directory: one line per use case (those the principal may call, if given)."""
    with _open(expect_data=False) as sluice:
        if key or as_:
            text = sluice.gateway.directory(_principal(sluice, key, as_))
        else:
            text = sluice.catalog.directory()
        typer.echo(text, nl=False)


@app.command()
def actions(names: Annotated[list[str], typer.Argument(help="Use case names.")]) -> None:
    """Print the full sheets of the named use cases as a JSON array."""
    with _open(expect_data=False) as sluice:
        try:
            sheets = sluice.catalog.sheets(names)
        except UnknownUseCaseError as error:
            _usage_error(f"{error}; the use cases are {', '.join(sluice.catalog.names)}")
        shown = [sheet.model_dump(mode="json") for sheet in sheets]
        typer.echo(json.dumps(shown, indent=2, ensure_ascii=False))


@app.command()
def run(  # noqa: PLR0917 (typer maps each parameter to an option)
    file: Annotated[Path, typer.Argument(help="The program: Python, or a JSON plan.")],
    key: KeyOption = None,
    as_: AsOption = None,
    language: Annotated[
        str | None,
        typer.Option(
            "--language",
            help="python, or plan for a JSON plan (default: plan for a .json file, else python).",
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Commit without asking.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Check a program, preview its events, ask for confirmation, then commit all or nothing."""
    if language is None:
        language = "plan" if file.suffix.lower() == ".json" else "python"
    if language not in ("python", "plan"):
        _usage_error(f"--language {language!r}: use python or plan")
    try:
        source = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        _usage_error(f"cannot read program {file}: {getattr(error, 'strerror', None) or error}")
    if not source.strip():
        _usage_error(f"program {file} is empty: there is nothing to run")
    human = Console(stderr=json_out)
    with _open() as sluice:
        principal = _principal(sluice, key, as_)
        outcome = submit(
            sluice.gateway, principal, language, source, console=human, yes=yes, err=json_out
        )
    _report(outcome, human, json_out=json_out)


@app.command()
def confirm(
    run_id: Annotated[
        str, typer.Argument(help="The proposal's id, or its start (8 characters, say).")
    ],
    key: KeyOption = None,
    as_: AsOption = None,
    yes: Annotated[bool, typer.Option("--yes", help="Commit without asking.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Review a pending proposal (an agent's, say) and confirm it: a person's key only."""
    human = Console(stderr=json_out)
    with _open() as sluice:
        principal = _principal(sluice, key, as_)
        try:
            run_id = resolve_run_id(sluice, run_id, noun="proposal")
        except RunIdError as error:
            _usage_error(str(error))
        try:
            sluice.gateway.check_decides(principal, run_id, "confirm")
            proposal = sluice.gateway.proposal(principal, run_id)
        except GatewayError as refused:
            _usage_error(str(refused))
        if proposal.status != "pending":
            outcome = RunReport.ended(proposal)
        else:
            outcome = decide(
                sluice.gateway, principal, proposal, console=human, yes=yes, err=json_out
            )
    _report(outcome, human, json_out=json_out)


@app.command()
def proposals(  # noqa: PLR0917 (typer maps each parameter to an option)
    key: KeyOption = None,
    as_: AsOption = None,
    status: Annotated[
        str, typer.Option("--status", help="pending, committed, failed, rejected, expired or all.")
    ] = "pending",
    limit: Annotated[int, typer.Option("--limit", min=1, max=MAX_LIMIT, help="Per page.")] = 20,
    cursor: Annotated[str | None, typer.Option("--cursor", help="The next page's cursor.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the page as JSON.")] = False,
) -> None:
    """The inbox: proposals waiting for a person (one's own; everyone's for auditors and
    admins), newest first, a page at a time."""
    with _open() as sluice:
        principal = _principal(sluice, key, as_)
        try:
            list_proposals(
                sluice, principal, status=None if status == "all" else status, cursor=cursor,
                limit=limit, json_out=json_out, console=Console(),
            )  # fmt: skip
        except GatewayError as refused:
            _usage_error(str(refused))


def _report(outcome: RunReport, human: Console, *, json_out: bool) -> NoReturn:
    """Print what became of the program (one JSON object with --json); exit 0 if committed."""
    if json_out:
        typer.echo(as_json(outcome.model_dump(mode="json")))
    else:
        show_outcome(human, outcome)
    raise typer.Exit(0 if outcome.status == "committed" else 1)


@app.command()
def call(
    name: Annotated[str, typer.Argument(help="A use case, e.g. transfer.")],
    arguments: Annotated[
        list[str] | None, typer.Argument(help="NAME=VALUE pairs; a VALUE is JSON or text.")
    ] = None,
    key: KeyOption = None,
    as_: AsOption = None,
) -> None:
    """Call one use case directly, as the HTTP API's POST /v1/use-cases/NAME does."""
    parsed = {}
    for pair in arguments or []:
        field, sep, value = pair.partition("=")
        if not sep or not field:
            _usage_error(f"{pair!r} is not NAME=VALUE")
        try:
            parsed[field] = json.loads(value)
        except ValueError:  # not JSON, or a number past Python's 4300 digits: the text
            parsed[field] = value
    with _open() as sluice:
        try:
            outcome = sluice.gateway.call(
                _principal(sluice, key, as_), name, parsed, consistent=True
            )
        except GatewayError as refused:
            typer.echo(as_json(refused.to_json()))
            raise typer.Exit(1) from None
    typer.echo(as_json(outcome.model_dump(mode="json")))


@app.command()
def demo() -> None:
    """Seed the demo ledger and principals where they are absent; print the demo keys."""
    with _open(expect_data=False) as sluice:
        opened, registered = seed(sluice.gateway, sluice.domain.demo, ownable=sluice.domain.ownable)
        where = redacted(sluice.database_url)
        seeded = sluice.domain.demo
    if opened or registered:
        made = ", ".join(opened) or seeded.made_none  # in the domain's words
        typer.echo(f"Demo data in {where}: {seeded.made} {made}, "
                   f"registered {', '.join(registered) or 'no principals'}")  # fmt: skip
    else:
        typer.echo(f"The demo data is already in {where}; nothing changed")
    print_demo_keys(seeded)


@app.command()
def chat(key: KeyOption = None, as_: AsOption = None) -> None:
    """Talk to the agent: it writes programs; you read each preview and confirm."""
    from gateway.interfaces.cli.chat import interactive_chat

    with _open() as sluice:
        status = interactive_chat(sluice, _principal(sluice, key, as_), console=Console())
    raise typer.Exit(status)


@app.command()
def shell(key: KeyOption = None, as_: AsOption = None) -> None:
    """Type programs, see their previews, confirm them: an interactive session."""
    from gateway.interfaces.cli.shell import interactive_session

    with _open() as sluice:
        interactive_session(sluice, _principal(sluice, key, as_), console=Console())


STORE_ERROR = 1


def main() -> None:
    # click maps usage errors to exit code 2 itself; the rest is ours.
    try:
        sys.exit(app(standalone_mode=True))
    except PersistenceError as error:
        # The store is down or refused: one line naming it, not a traceback.
        _error(f"the event store failed: {error}")
        sys.exit(STORE_ERROR)
