"""How previews and outcomes look in a terminal."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table


def show_preview(console: Console, preview: dict[str, Any]) -> None:
    """A preview as the gateway reports it: events, printed output, result, caps used."""
    events = preview.get("events", [])
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
    if preview.get("output"):
        console.print("[bold]Printed:[/]", escape(preview["output"].rstrip()), highlight=False)
    console.print("[bold]Result:[/]", escape(_json(preview.get("result"))), highlight=False)
    used = [
        f"{name} {cap['used']} of {cap['limit']}"
        for name, cap in preview.get("caps", {}).items()
        if cap.get("limit") is not None
    ]
    if used:
        console.print("[bold]Caps used:[/]", escape(", ".join(used)), highlight=False)


def show_handoff(console: Console, proposal: dict[str, Any]) -> None:
    """An agent key's proposal: its preview, and who may confirm it, and where."""
    show_preview(console, proposal["preview"])
    console.print(
        f"Proposal {proposal['id']} waits for a person: this key has scope agent, so it may "
        f"propose but not confirm. Confirm it with `sluice confirm {proposal['id']}` and a "
        "human key, or in the web console.",
        highlight=False,
        markup=False,
    )


def show_outcome(console: Console, outcome: dict[str, Any]) -> None:
    status = outcome["status"]
    if status == "committed":
        changed = outcome["changed"]
        console.print(
            "[bold green]Committed[/]: "
            + ("nothing to write." if changed == "nothing" else f"{changed} events appended.")
        )
    elif status == "declined":
        console.print("[bold yellow]Declined[/]: nothing was written.")
    elif status == "pending":
        console.print("[bold yellow]Pending[/]: nothing is written until a person confirms.")
    else:
        console.print(
            f"[bold red]Failed[/]: {escape(str(outcome['error']))}; nothing was written.",
            highlight=False,
        )


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
