"""Propose, show, ask, confirm: the path of one program from a terminal."""

from __future__ import annotations

from typing import Literal

import typer
from rich.console import Console

from application.principals import PrincipalView
from application.results import Proposal
from gateway.core.errors import GatewayError, StaleProposalError
from gateway.core.facade import Gateway
from gateway.core.policy.decisions import may_decide
from gateway.interfaces.cli.render import show_handoff, show_preview, show_summary, shown
from gateway.interfaces.cli.report import RunReport


def submit(
    gateway: Gateway,
    principal: PrincipalView,
    language: str,
    source: str,
    *,
    console: Console,
    yes: bool,
    err: bool,
) -> RunReport:
    """What became of one program: committed, pending a person, declined or failed."""
    try:
        proposal = gateway.propose(principal, language, source)
    except GatewayError as refused:
        return RunReport.refused(refused)
    if proposal.status != "pending":
        return RunReport.completed(proposal)
    if not may_decide(principal):
        show_handoff(console, proposal)
        return RunReport.waiting(proposal)
    return decide(gateway, principal, proposal, console=console, yes=yes, err=err)


def decide(
    gateway: Gateway,
    principal: PrincipalView,
    proposal: Proposal,
    *,
    console: Console,
    yes: bool,
    err: bool,
) -> RunReport:
    """Show a pending proposal's preview, ask, then confirm its hash or reject it. A preview
    whose accounts have moved since is said to be stale before anything is asked, and
    previewed again (with --yes, nothing is previewed unseen: the confirmation is refused)."""
    if proposal.moved_since_preview:
        moved = ", ".join(proposal.moved_since_preview)
        console.print(
            shown(f"Stale: {moved} moved since this preview ({proposal.created_at}); its "
                  "numbers are not today's.", "yellow")
        )  # fmt: skip
        if not yes:
            try:
                proposal = gateway.refresh(principal, proposal.id)
            except GatewayError as refused:
                return RunReport.refused(refused)
            if proposal.status != "pending":
                return RunReport.of(proposal.outcome, run_id=proposal.id)
            console.print(shown("A fresh preview, with today's numbers:", "yellow"))
    while True:
        console.print(shown(f"Proposed by {proposal.proposer()}", "bold"))
        show_summary(console, proposal)
        show_preview(console, proposal.preview)
        console.print(f"Proposal {proposal.id} (expires {proposal.expires_at})", markup=False)
        answer = "confirm" if yes else ask(len(proposal.preview.events), err=err)
        if answer == "keep":
            return RunReport.declined(proposal)
        if answer == "reject":
            try:
                return RunReport.rejected(gateway.reject(principal, proposal.id))
            except GatewayError as refused:
                return RunReport.refused(refused)
        try:
            return RunReport.of(gateway.confirm(principal, proposal.id, proposal.preview_hash))
        except StaleProposalError as stale:
            if stale.fresh is None or yes:
                return RunReport.refused(stale)
            console.print(shown(stale, "yellow"), highlight=False)
            proposal = stale.fresh
        except GatewayError as refused:
            return RunReport.refused(refused)


# The question, and the answers it takes: the default (Enter, or no terminal) decides nothing.
QUESTION = (
    "Commit these {count} events? [y] confirm, [n] not now (it stays pending), [r] reject for good"
)
ANSWERS = {"y": "confirm", "yes": "confirm", "n": "keep", "no": "keep", "": "keep",
           "r": "reject", "reject": "reject"}  # fmt: skip
Decision = Literal["confirm", "keep", "reject"]


def decision(answer: str) -> Decision | None:
    """What a typed answer means; None when it is none of the answers."""
    return ANSWERS.get(answer.strip().lower())  # type: ignore[return-value]


def ask(count: int, *, err: bool) -> Decision:
    """Ask until the answer is one of them; no terminal (end of input) keeps it pending."""
    while True:
        try:
            typed = typer.prompt(
                QUESTION.format(count=count), default="n", show_default=True, err=err
            )
        except typer.Abort:
            return "keep"
        chosen = decision(str(typed))
        if chosen is not None:
            return chosen
        typer.echo("Answer y, n or r.", err=err)
