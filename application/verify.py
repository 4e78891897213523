"""Audit checks from the log itself: balances recomputed, money conserved, runs contiguous."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any
from uuid import UUID

from eventsourcing.domain import AggregateEvent
from eventsourcing.utils import get_topic

from application.bank.projections import ACCOUNT_TOPICS
from application.bank.statement import SIGNS
from application.ledger import Ledger
from application.read_models.service import ReadModels
from domain.account import Account
from domain.money import ZERO
from domain.run import Run

PAGE = 5000


@dataclass
class Check:
    name: str
    ok: bool
    details: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"check": self.name, "ok": self.ok, "details": self.details[:20]}


def verify(
    ledger: Ledger, read_models: ReadModels, progress: Callable[[int, int], None] | None = None
) -> tuple[int, list[Check]]:
    """Recompute from the log up to the balances model's position, then check it all;
    `progress` is told the position read after each page, and the last position."""
    position = read_models.position("balances")
    balances: dict[UUID, Decimal] = defaultdict(lambda: ZERO)
    names: dict[UUID, str] = {}
    went_negative: list[str] = []
    deposits = withdrawals = ZERO
    positions: dict[tuple[str, int], int] = {}
    committed_runs: list[tuple[int, list[dict[str, Any]]]] = []
    decoded = {*ACCOUNT_TOPICS, get_topic(Run.Committed)}
    start = 1
    while start <= position:
        # Every event, so that a run's events of any domain are placed; only the accounts'
        # events and the commits of runs are decoded.
        page = ledger.recorder.select_notifications(start, PAGE, stop=position)
        for notification in page:
            if notification.topic not in decoded:
                originator = UUID(str(notification.originator_id))
                positions[(originator.hex, notification.originator_version)] = notification.id
                continue
            event = ledger.mapper.to_domain_event(notification)
            assert isinstance(event, AggregateEvent)
            if isinstance(event, Run.Committed):
                committed_runs.append((notification.id, event.events))
                continue
            positions[(event.originator_id.hex, event.originator_version)] = notification.id
            if isinstance(event, Account.Opened):
                names[event.originator_id] = event.account
            _kind, sign = SIGNS[type(event)]
            amount: Decimal = getattr(event, "amount", ZERO)
            balances[event.originator_id] += sign * amount
            if isinstance(event, Account.Deposited):
                deposits += amount
            elif isinstance(event, Account.Withdrawn):
                withdrawals += amount
            if balances[event.originator_id] < 0:
                went_negative.append(
                    f"{names.get(event.originator_id)} at position {notification.id}"
                )
        if len(page) < PAGE:
            break
        start = page[-1].id + 1
        if progress:
            progress(page[-1].id, position)
    if progress:
        progress(position, position)
    recomputed = {names[key]: value for key, value in balances.items()}
    return position, [
        _same_balances(recomputed, read_models),
        _money_conserved(recomputed, deposits, withdrawals),
        Check("no negative balance", not went_negative, went_negative),
        _runs_contiguous(committed_runs, positions),
        _nothing_set_aside(read_models),
    ]


def _nothing_set_aside(read_models: ReadModels) -> Check:
    details = [
        f"{letter.projection} could not apply the event at position {letter.position}: "
        f"{letter.error}"
        for letter in read_models.dead_letters()
    ]
    return Check("no event set aside by a projection", not details, details)


def _same_balances(recomputed: dict[str, Decimal], read_models: ReadModels) -> Check:
    modelled = {row.account: row.balance for row in read_models.store.balances()}
    details = [
        f"{account}: log says {recomputed.get(account)}, read model says {modelled.get(account)}"
        for account in sorted(set(recomputed) | set(modelled))
        if recomputed.get(account) != modelled.get(account)
    ]
    return Check("balances recomputed from the log equal the read model", not details, details)


def _money_conserved(
    balances: dict[str, Decimal], deposits: Decimal, withdrawals: Decimal
) -> Check:
    total = sum(balances.values(), ZERO)
    ok = total == deposits - withdrawals
    detail = f"money in accounts {total}, deposits {deposits} - withdrawals {withdrawals}"
    return Check(
        "money in the system equals deposits minus withdrawals", ok, [] if ok else [detail]
    )


def _runs_contiguous(
    committed_runs: list[tuple[int, list[dict[str, Any]]]], positions: dict[tuple[str, int], int]
) -> Check:
    details = []
    for committed_at, events in committed_runs:
        placed = sorted(
            positions.get((UUID(e["aggregate_id"]).hex, int(e["version"])), -1) for e in events
        )
        if placed and (placed[0] < 0 or placed != list(range(placed[0], placed[0] + len(placed)))):
            details.append(f"the run committed at position {committed_at} has events at {placed}")
    return Check("the events of each committed run are contiguous in the log", not details, details)
