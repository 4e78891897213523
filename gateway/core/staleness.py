"""Has a pending proposal's preview gone stale? The accounts it read or would write that
have moved on since: what a confirmation would meet as a conflict, told before anyone
decides (it tells no more than that 409 would)."""

from __future__ import annotations

from uuid import UUID

from application.ledger import Ledger
from domain.run import Run


def moved_since_preview(ledger: Ledger, run: Run) -> list[str]:
    """The names of the accounts (or "the list of accounts") whose version is not the one the
    preview saw, in the order the preview met them; [] when the preview is current."""
    expected = {UUID(k): v for k, v in run.read_versions.items()}
    for item in run.stored_events:
        written = UUID(item["originator_id"])
        before = int(item["originator_version"]) - 1
        expected[written] = min(expected.get(written, before), before)
    moved = []
    for aggregate_id, version in expected.items():
        last = ledger.recorder.select_events(aggregate_id, desc=True, limit=1)
        current = last[0].originator_version if last else 0
        if current != version:
            moved.append(_name(ledger, aggregate_id))
    return moved


def _name(ledger: Ledger, aggregate_id: UUID) -> str:
    aggregate: object = ledger.repository.get(aggregate_id)
    account = getattr(aggregate, "account", None)
    return str(account) if isinstance(account, str) else "the list of accounts"
