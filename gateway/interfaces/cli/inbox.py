"""`sluice proposals`: the inbox in a terminal, a page at a time: at a glance, the money each
proposal moves, who proposed it (a person, or a person's agent, and over what), its status
and the time left to decide it."""

from __future__ import annotations

from datetime import UTC, datetime

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from application.money_moves import move_words
from application.principals import PrincipalView
from application.results import proposer_words
from gateway.bootstrap import Sluice
from gateway.core.inbox import Inbox, ProposalSummary
from gateway.core.paging import Page
from gateway.core.read_side import ReadSide
from gateway.interfaces.cli.render import as_json, shown

EXCERPT = 60
SHORT_ID = 8


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
        now = datetime.now(UTC)
        table = Table(title=f"{what} for {principal.name}, newest first", title_justify="left")
        for column in ("id", "moves", "proposed by", "status", "time left", "request"):
            table.add_column(column, overflow="fold" if column != "request" else "ellipsis")
        for item in page.items:
            table.add_row(
                shown(item.id[:SHORT_ID]),
                shown(money(item)),
                shown(proposer_words(item.principal, item.proposed_via, detail=False)),
                shown(status_words(item)),
                shown(time_left(item, now)),
                shown(request_words(item)),
            )
        console.print(table)
        if status == "pending":
            console.print(Text("Review and decide one with: sluice confirm ID"))
    if page.next_cursor:
        console.print(Text(f"More: add --cursor {page.next_cursor}"))
    return page


def money(item: ProposalSummary) -> str:
    """Every move of money, one a line; a proposal that moves none says what else it does."""
    if item.moves:
        return "\n".join(move_words(move) for move in item.moves)
    return "nothing (a read)" if item.reads_only else f"no money ({item.events} events)"


def status_words(item: ProposalSummary) -> str:
    """A read completed at once is no confirmed proposal: it says so."""
    return "done (a read)" if item.reads_only and item.status == "committed" else item.status


def time_left(item: ProposalSummary, now: datetime) -> str:
    if item.status != "pending":
        return "-"
    left = int((datetime.fromisoformat(item.expires_at) - now).total_seconds())
    if left <= 0:
        return "expired"
    minutes, seconds = divmod(left, 60)
    return f"{minutes}m {seconds:02d}s" if minutes < 60 else f"{minutes // 60}h {minutes % 60}m"


def request_words(item: ProposalSummary) -> str:
    """The request as the words of whoever wrote it: an agent's are its own, not a fact."""
    if not item.request:
        return excerpt(item.source)
    return f"{item.request_by} wrote: “{excerpt(item.request)}”"


def excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 3] + "..."
