"""Propose, show, ask, confirm: the path of one program from a terminal."""

from __future__ import annotations

import typer
from rich.console import Console

from application.principals import PrincipalView
from gateway.core.errors import GatewayError, StaleProposalError
from gateway.core.facade import Gateway
from gateway.core.policy.decisions import may_decide
from gateway.core.results import Proposal
from gateway.interfaces.cli.render import show_handoff, show_preview, shown
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
        return RunReport.of(proposal.outcome)
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
    """Show a pending proposal's preview, ask, then confirm its hash or reject it."""
    while True:
        show_preview(console, proposal.preview)
        console.print(f"Proposal {proposal.id} (expires {proposal.expires_at})", markup=False)
        if not yes and not _confirmed(len(proposal.preview.events), err=err):
            gateway.reject(principal, proposal.id)
            return RunReport.declined(proposal)
        try:
            return RunReport.of(gateway.confirm(principal, proposal.id, proposal.preview_hash))
        except StaleProposalError as stale:
            if stale.fresh is None or yes:
                return RunReport.refused(stale)
            console.print(shown(stale, "yellow"), highlight=False)
            proposal = stale.fresh
        except GatewayError as refused:
            return RunReport.refused(refused)


def _confirmed(count: int, *, err: bool) -> bool:
    try:
        return typer.confirm(f"Commit these {count} events?", default=False, err=err)
    except typer.Abort:
        return False
