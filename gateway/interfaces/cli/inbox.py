"""`sluice proposals`: the inbox in a terminal, a page at a time."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from application.principals import PrincipalView
from gateway.bootstrap import Sluice
from gateway.core.inbox import Inbox, ProposalSummary
from gateway.core.paging import Page
from gateway.core.read_side import ReadSide
from gateway.interfaces.cli.render import as_json, shown

EXCERPT = 60


def list_proposals(
    sluice: Sluice,
    principal: PrincipalView,
    *,
    status: str | None,
    cursor: str | None,
    limit: int,
    json_out: bool,
    console: Console,
) -> Page[ProposalSummary]:
    """Print one page of the principal's proposals (GatewayError for a bad status or cursor)."""
    gateway = sluice.gateway
    page = Inbox(gateway, ReadSide(gateway)).list(
        principal, status=status, cursor=cursor, limit=limit, consistent=True
    )
    if json_out:
        typer.echo(as_json(page.model_dump(mode="json")))
        return page
    what = f"{status} proposals" if status else "runs"
    if not page.items:
        console.print(Text(f"No {what} for {principal.name}."))
    else:
        table = Table(title=f"{what} for {principal.name}, newest first", title_justify="left")
        for column in ("id", "proposed", "by", "request or program", "events", "expires"):
            table.add_column(column, overflow="fold" if column == "id" else "ellipsis")
        for item in page.items:
            table.add_row(
                shown(item.id),
                shown(item.created_at[:19].replace("T", " ")),
                shown(item.principal),
                shown(_excerpt(item.request or item.source)),
                shown(item.events),
                shown(item.expires_at[:19].replace("T", " ")),
            )
        console.print(table)
        if status == "pending":
            console.print(Text("Review and decide one with: sluice confirm ID"))
    if page.next_cursor:
        console.print(Text(f"More: add --cursor {page.next_cursor}"))
    return page


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 3] + "..."
