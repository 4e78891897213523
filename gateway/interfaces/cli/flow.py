"""Propose, show, ask, confirm: the path of one program from a terminal."""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console

from application.principals import PrincipalView
from gateway.core.errors import GatewayError, StaleProposalError
from gateway.core.facade import Gateway
from gateway.core.policy.decisions import may_decide
from gateway.core.results import Outcome, Proposal
from gateway.interfaces.cli.render import show_handoff, show_preview, shown

OUTCOME_KEYS = ("status", "changed", "events", "result", "error")


def submit(
    gateway: Gateway,
    principal: PrincipalView,
    language: str,
    source: str,
    *,
    console: Console,
    yes: bool,
    err: bool,
) -> dict[str, Any]:
    """The outcome `{status, changed, events, result, error}` of one program."""
    try:
        proposal = gateway.propose(principal, language, source)
    except GatewayError as refused:
        return _failed(str(refused))
    if proposal.status != "pending":
        return _only_outcome(proposal.outcome)
    if not may_decide(principal):
        show_handoff(console, proposal.model_dump(mode="json"))
        return {"status": "pending", "changed": "nothing", "events": [],
                "result": proposal.preview.result, "error": None,
                "run_id": proposal.id}  # fmt: skip
    return decide(gateway, principal, proposal, console=console, yes=yes, err=err)


def decide(
    gateway: Gateway,
    principal: PrincipalView,
    proposal: Proposal,
    *,
    console: Console,
    yes: bool,
    err: bool,
) -> dict[str, Any]:
    """Show a pending proposal's preview, ask, then confirm its hash or reject it."""
    while True:
        show_preview(console, proposal.preview.model_dump(mode="json"))
        console.print(f"Proposal {proposal.id} (expires {proposal.expires_at})", markup=False)
        if not yes and not _confirmed(len(proposal.preview.events), err=err):
            gateway.reject(principal, proposal.id)
            return {"status": "declined", "changed": "nothing", "events": [],
                    "result": proposal.preview.result, "error": None}  # fmt: skip
        try:
            return _only_outcome(gateway.confirm(principal, proposal.id, proposal.preview_hash))
        except StaleProposalError as stale:
            if stale.fresh is None or yes:
                return _failed(str(stale))
            console.print(shown(stale, "yellow"), highlight=False)
            proposal = stale.fresh
        except GatewayError as refused:
            return _failed(str(refused))


def _confirmed(count: int, *, err: bool) -> bool:
    try:
        return typer.confirm(f"Commit these {count} events?", default=False, err=err)
    except typer.Abort:
        return False


def _failed(error: str) -> dict[str, Any]:
    return {"status": "failed", "changed": "nothing", "events": [], "result": None, "error": error}


def _only_outcome(outcome: Outcome) -> dict[str, Any]:
    """The CLI's JSON outcome: the gateway's fields but the run's id."""
    return outcome.model_dump(mode="json", include=set(OUTCOME_KEYS))
