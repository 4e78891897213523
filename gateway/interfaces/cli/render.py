"""How previews and outcomes look in a terminal.

Data is never markup and never a control sequence: every value is shown through `shown` (a
rich Text, so brackets are not markup, with each control character written as its escape),
and what a program printed is framed apart, under its own title, so that no line of it can
pass for the gateway's own words (a forged "would append 0 events", say).
"""

from __future__ import annotations

import json
from typing import Any

from rich import box
from rich.console import Console, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from application.inert_text import inert, inert_json
from gateway.core.origins_shown import origin_lines
from gateway.core.results import Preview, Proposal
from gateway.interfaces.cli.report import RunReport

PRINTED_TITLE = "Printed by the program (its own text, not Sluice's)"


def shown(value: object, style: str = "", *, lines: bool = False) -> Text:
    """A value as inert text: no markup, control characters made visible."""
    return Text(inert(str(value), lines=lines), style=style)


def said(label: str, label_style: str, value: object, style: str = "") -> RenderableType:
    """`label value`: the gateway's label, then the data beside it. A value too long for
    one line wraps in its own column, so none of its lines starts where the gateway's do."""
    grid = Table.grid(padding=(0, 1, 0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")  # all of it is shown: a long word folds, never cut
    grid.add_row(Text(label, style=label_style), shown(value, style))
    return grid


def framed(title: str, text: str) -> RenderableType:
    """Text that is not the gateway's, in a frame of its own: each line, wrapped or not,
    starts with the frame's border."""
    return Panel(
        shown(text.rstrip("\n"), lines=True),
        title=Text(title),
        title_align="left",
        box=box.SQUARE,
        expand=False,
    )


def show_preview(console: Console, preview: Preview) -> None:
    """A preview as the gateway reports it: events, printed output, result, caps used."""
    if preview.events:
        count = len(preview.events)
        table = Table(title=f"The program would append {count} events", title_justify="left")
        for column in ("#", "account", "event", "amount", "counterparty", "memo"):
            table.add_column(column, overflow="fold")  # a person reads all of each value
        for number, event in enumerate(preview.events, 1):
            cells = (
                number,
                event.account,
                event.type,
                event.data.get("amount", ""),
                event.data.get("counterparty", ""),
                event.data.get("memo", ""),
            )
            table.add_row(*(shown(cell) for cell in cells))
        console.print(table)
    else:
        console.print("The program changes nothing.")
    show_origins(console, preview)
    if preview.output:
        console.print(framed(PRINTED_TITLE, preview.output))
    console.print(said("Result:", "bold", as_json(preview.result)), highlight=False)
    used = [
        f"{name} {cap['used']} of {cap['limit']}"
        for name, cap in preview.caps.items()
        if cap.get("limit") is not None
    ]
    if used:
        console.print(said("Caps used:", "bold", ", ".join(used)), highlight=False)


def show_origins(console: Console, preview: Preview) -> None:
    """Where the program took each value it did not write itself; text another party wrote
    is marked before the person confirms."""
    lines = origin_lines(preview)
    if not lines:
        return
    console.print("Where the program took the values it did not write itself:")
    for line in lines:
        console.print(shown("  " + line.sentence(), "bold red" if line.text_by else ""))


def show_handoff(console: Console, proposal: Proposal) -> None:
    """An agent key's proposal: its preview, and who may confirm it, and where."""
    show_preview(console, proposal.preview)
    console.print(
        f"Proposal {proposal.id} waits for a person: this key has scope agent, so it may "
        f"propose but not confirm. Confirm it with `sluice confirm {proposal.id}` and a "
        "human key, or in the web console.",
        highlight=False,
        markup=False,
    )


def show_outcome(console: Console, outcome: RunReport) -> None:
    status = outcome.status
    if status == "committed":
        changed = outcome.changed
        console.print(
            "[bold green]Committed[/]: "
            + ("nothing to write." if changed == "nothing" else f"{changed} events appended.")
        )
    elif status == "declined":
        console.print("[bold yellow]Declined[/]: nothing was written.")
    elif status == "pending":
        console.print("[bold yellow]Pending[/]: nothing is written until a person confirms.")
    else:
        error = f"{outcome.error}; nothing was written."
        console.print(said("Failed:", "bold red", error), highlight=False)


def as_json(value: Any) -> str:
    """JSON for a terminal: any control character inside a string is an escape."""
    return inert_json(json.dumps(value, ensure_ascii=False))
