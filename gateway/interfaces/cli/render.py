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
from application.money_moves import move_words
from application.results import Preview, Proposal
from gateway.core.origins_shown import origin_lines
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
    """A preview as the gateway reports it: events, printed output, result, caps used.

    Each event is a row: its record's key, its type, then every field of its data (the
    fields of all the events, in the order met; a nested value as JSON), whatever the
    domain: a person confirms what each event holds, not a domain's chosen few fields."""
    if preview.events:
        count = len(preview.events)
        table = Table(title=f"The program would append {count} events", title_justify="left")
        fields = list(dict.fromkeys(name for event in preview.events for name in event.data))
        for column in ("#", "record", "event", *fields):
            table.add_column(column, overflow="fold")  # a person reads all of each value
        for number, event in enumerate(preview.events, 1):
            data = [_cell(event.data.get(name, "")) for name in fields]
            cells = (number, event.account, event.type, *data)
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


def _cell(value: object) -> object:
    """A data field's value as a table shows it: a nested one as compact JSON."""
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return "" if value is None else value


def show_origins(console: Console, preview: Preview) -> None:
    """Where the program took each value it did not write itself; text another party wrote
    is marked before the person confirms."""
    lines = origin_lines(preview)
    if not lines:
        return
    console.print("Where the program took the values it did not write itself:")
    for line in lines:
        console.print(shown("  " + line.sentence(), "bold red" if line.text_by else ""))


def show_summary(console: Console, proposal: Proposal) -> None:
    """The decision at a glance: the money it moves, and the request in its author's words."""
    if proposal.moves:
        moves = "; ".join(move_words(move) for move in proposal.moves)
        console.print(said("It moves:", "bold", moves), highlight=False)
    if proposal.request:
        console.print(
            said(f"{proposal.request_by} wrote:", "bold", f"“{proposal.request}”", "italic"),
            highlight=False,
        )


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
    """What happened, in words that say it: what the program printed, the result of a
    read, and whether anything was written, and what can still happen to the proposal."""
    if outcome.output:
        console.print(framed(PRINTED_TITLE, outcome.output))
    console.print(outcome_words(outcome), highlight=False)
    if outcome.status == "committed" and outcome.result is not None:
        console.print(said("Result:", "bold", as_json(outcome.result)), highlight=False)


def outcome_words(outcome: RunReport) -> Text:
    """One line: the status in colour, then what it means."""
    run = f"proposal {outcome.run_id}" if outcome.run_id else "the proposal"
    by = f" by {outcome.decided_by}" if outcome.decided_by else ""
    at = f" at {moment(outcome.decided_at)}" if outcome.decided_at else ""
    status, changed = outcome.status, outcome.changed
    if status == "committed":
        if outcome.already:
            done = "nothing to write" if changed == "nothing" else f"its {changed} events appended"
            head, rest = "Already committed", f"{run} was confirmed{by}{at}, {done} then; "
            rest += "nothing more was written."
        elif changed == "nothing":
            head, rest = "Done", "a read; nothing to write."
        else:
            head, rest = "Committed", f"{changed} events appended."
        return _line(head, "bold green", rest)
    if status == "declined":
        until = f" until {moment(outcome.expires_at)}" if outcome.expires_at else ""
        rest = (
            f"nothing was written. {run[0].upper()}{run[1:]} still waits for a decision{until}: "
            f"`sluice confirm {outcome.run_id}`, or the web console."
        )
        return _line("Not confirmed", "bold yellow", rest)
    if status == "pending":
        rest = "nothing is written until a person confirms"
        return _line("Pending", "bold yellow", f"{rest} {run}." if outcome.run_id else f"{rest}.")
    if status == "rejected":
        if outcome.already:
            rest = f"{run} was rejected{by}{at}; nothing was written, and it can no longer be "
            return _line("Rejected", "bold red", rest + "confirmed.")
        rest = f"{run} can no longer be confirmed; nothing was written."
        return _line("Rejected for good", "bold red", rest)
    if status == "expired":
        when = f" at {moment(outcome.expires_at)}" if outcome.expires_at else ""
        rest = f"{run} expired{when} before anyone confirmed it; nothing was written."
        return _line("Expired", "bold red", rest)
    error = outcome.error or "the program did not complete"
    return _line("Failed", "bold red", f"{error}; nothing was written.")


def _line(head: str, style: str, rest: str) -> Text:
    return Text.assemble((f"{head}:", style), " ", shown(rest))


def moment(iso: str | None) -> str:
    """A stored time as a person reads it: `2026-11-29 15:00:34 UTC`."""
    if not iso:
        return ""
    return iso[:19].replace("T", " ") + (" UTC" if iso.endswith("+00:00") else "")


def as_json(value: Any) -> str:
    """JSON for a terminal: any control character inside a string is an escape."""
    return inert_json(json.dumps(value, ensure_ascii=False))
