"""The port through which the gateway tells someone that a proposal waits for a person."""

from __future__ import annotations

import logging
from typing import Protocol

from application.results import Proposal

log = logging.getLogger("sluice.notify")


class PendingNotifier(Protocol):
    def proposal_pending(self, proposal: Proposal) -> None:
        """Called once a write program's proposal is stored and waits for confirmation.
        It must return at once (deliver in the background) and should not raise."""


def tell(notifier: PendingNotifier | None, proposal: Proposal) -> None:
    """Notify, if a notifier is wired; an error of its own never fails the proposal."""
    if notifier is None or proposal.status != "pending":
        return
    try:
        notifier.proposal_pending(proposal)
    except Exception:
        log.exception("the notice of proposal %s could not be queued", proposal.id)
