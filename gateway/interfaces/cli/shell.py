"""An interactive session: write a program, read its preview, confirm or not."""

from __future__ import annotations

from rich.console import Console

from application.principals import PrincipalView
from application.read_routes import Listing
from application.store_config import redacted
from gateway.bootstrap import Sluice
from gateway.core.catalog import Catalog
from gateway.core.errors import GatewayError
from gateway.core.read_side import ReadSide
from gateway.interfaces.cli.flow import submit
from gateway.interfaces.cli.render import show_outcome, shown

GREETING = """Sluice, acting as {principal} ({role}). Store: {where}
Write a program that calls the use cases below, by keyword (transfer(payer="alice", \
payee="bob", amount=10)); end it with an empty line. A read shows its result at once; a \
write shows its preview and asks before anything is written.
`help NAME` shows a use case's arguments; `balances` the accounts you may see; Ctrl-D (or \
`quit`) leaves.
"""


def interactive_session(sluice: Sluice, principal: PrincipalView, *, console: Console) -> None:
    greeting = GREETING.format(
        principal=principal.name, role=principal.role, where=redacted(sluice.database_url)
    )
    console.print(greeting, markup=False, highlight=False)
    catalog = sluice.gateway.catalog_for(principal)
    console.print("\n".join(catalog.entries()) + "\n", markup=False, highlight=False)
    while True:
        source = _read_program(console)
        if source is None or source.strip() == "quit":
            console.print("Bye.")
            return
        if source.strip() == "balances":
            _show_balances(sluice, principal, console)
            continue
        if not source.strip():
            continue
        words = source.split()
        if words[0] == "help" and len(words) <= 2:
            _show_help(catalog, words[1] if len(words) == 2 else "", console)
            continue
        outcome = submit(
            sluice.gateway, principal, "python", source, console=console, yes=False, err=False
        )
        show_outcome(console, outcome)


def _show_help(catalog: Catalog, name: str, console: Console) -> None:
    """A use case's documented stub: what it does, and each argument."""
    if name not in catalog:
        known = ", ".join(catalog.names)
        console.print(shown(f"help: no use case {name or '(none named)'}; yours are {known}"))
        return
    console.print(shown(catalog.only([name]).documented_stubs, lines=True), highlight=False)


def _read_program(console: Console) -> str | None:
    lines: list[str] = []
    while True:
        try:
            line = console.input("[bold cyan]...[/] " if lines else "[bold cyan]>>>[/] ")
        except EOFError:
            return None if not lines else "\n".join(lines)
        if not line.strip():
            return "\n".join(lines)
        lines.append(line)


def _show_balances(sluice: Sluice, principal: PrincipalView, console: Console) -> None:
    """The first listing the domain serves (the bank's accounts), a record a line."""
    listing = next((r for r in sluice.domain.read_routes if isinstance(r, Listing)), None)
    if listing is None:
        console.print(f"domain {sluice.domain.name} lists nothing to show here")
        return
    try:
        records = ReadSide(sluice.gateway).listed(listing, principal)
    except GatewayError as refused:
        console.print(shown(refused))
        return
    for record in records:
        values = [str(value) for value in record.model_dump(mode="json").values()]
        line = "  " + " ".join(f"{value:<12}" for value in values).rstrip()
        console.print(shown(line), highlight=False)
