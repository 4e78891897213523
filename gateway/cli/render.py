"""How previews and outcomes look in a terminal."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from gateway.program.outcome import Outcome
from gateway.program.runner import Preview


def show_preview(console: Console, preview: Preview) -> None:
    if not preview.ok:
        return  # the outcome says why, once
    events = preview.events
    if events:
        table = Table(title=f"The program would append {len(events)} events", title_justify="left")
        for column in ("#", "account", "event", "amount", "counterparty", "memo"):
            table.add_column(column)
        for number, event in enumerate(events, 1):
            data = event["data"]
            cells = (
                number,
                event["account"],
                event["type"],
                data.get("amount", ""),
                data.get("counterparty", ""),
                data.get("memo", ""),
            )
            table.add_row(*(escape(str(cell)) for cell in cells))
        console.print(table)
    else:
        console.print("The program changes nothing.")
    if preview.output:
        console.print("[bold]Printed:[/]", escape(preview.output.rstrip()), highlight=False)
    console.print("[bold]Result:[/]", escape(_json(preview.result)), highlight=False)


def show_outcome(console: Console, outcome: Outcome) -> None:
    if outcome.status == "committed":
        changed = outcome.changed
        console.print(
            "[bold green]Committed[/]: "
            + ("nothing to write." if changed == "nothing" else f"{changed} events appended.")
        )
    elif outcome.status == "declined":
        console.print("[bold yellow]Declined[/]: nothing was written.")
    else:
        console.print(
            f"[bold red]Failed[/]: {outcome.error}; nothing was written.", highlight=False
        )


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
