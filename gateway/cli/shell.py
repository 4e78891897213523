"""An interactive session: write a program, read its preview, confirm or not."""

from __future__ import annotations

from rich.console import Console

from application.bank.queries import ListAccounts
from application.direct_call import call_now
from gateway.bootstrap import Sluice
from gateway.cli.app import _decide
from gateway.cli.render import show_outcome, show_preview

GREETING = """Sluice, acting as {principal}. Store: {where}
Write a program that calls the use cases below; end it with an empty line.
Ctrl-D (or `quit`) leaves; `balances` shows the accounts.
"""


def interactive_session(sluice: Sluice, *, principal: str, console: Console) -> None:
    console.print(
        GREETING.format(principal=principal, where=sluice.database_url),
        markup=False,
        highlight=False,
    )
    console.print(sluice.catalog.directory(), markup=False, highlight=False)
    while True:
        source = _read_program(console)
        if source is None or source.strip() == "quit":
            console.print("Bye.")
            return
        if source.strip() == "balances":
            _show_balances(sluice, console)
            continue
        if not source.strip():
            continue
        preview = sluice.runner.preview(source)
        show_preview(console, preview)
        show_outcome(console, _decide(sluice, preview, yes=False, err=False))


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


def _show_balances(sluice: Sluice, console: Console) -> None:
    outcome = call_now(sluice.ledger, ListAccounts())
    for view in outcome.result or []:
        console.print(f"  {view.account:<12} {view.owner:<12} {view.balance:>10}  {view.status}")
