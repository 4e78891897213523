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
