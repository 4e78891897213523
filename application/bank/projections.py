"""The bank's projections: balances (account, owner, balance, status, version) and the
statement (each movement with its running balance and the run that committed it)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any
from uuid import UUID

from eventsourcing.domain import AggregateEvent
from eventsourcing.persistence import Notification
from eventsourcing.utils import get_topic

from application.bank.statement import SIGNS
from application.read_models import raw
from application.read_models.projection import LedgerProjection, Positioned
from application.read_models.rows import BalanceChange, RunLink, StatementRow
from application.read_models.store import Window
from domain.account import Account
from domain.money import ZERO
from domain.run import Run

ACCOUNT_TOPICS = tuple(get_topic(kind) for kind in SIGNS)
_KIND_OF_TOPIC = {get_topic(kind): kind for kind in SIGNS}
_SIGN_OF_TOPIC = {get_topic(kind): sign for kind, (_, sign) in SIGNS.items()}


class BalancesProjection(LedgerProjection):
    """balances: account, owner, balance, status, version."""

    name = "balances"
    topics = ACCOUNT_TOPICS

    def process_batch(self, events: Sequence[Positioned], window: Window) -> None:
        changes: dict[str, BalanceChange] = {}
        for event, _position in events:
            if type(event) not in SIGNS:
                continue
            key = event.originator_id.hex
            change = changes.setdefault(key, BalanceChange(key, ZERO, 0))
            change.delta += _signed_amount(event)
            change.version = event.originator_version
            if isinstance(event, Account.Opened):
                change.account, change.owner, change.status = event.account, event.owner, "open"
            elif isinstance(event, Account.Closed):
                change.status = "closed"
        self.view.apply_balances(list(changes.values()), window)

    def process_stored(self, notifications: Sequence[Notification], window: Window) -> bool:
        changes: dict[Any, BalanceChange] = {}
        kinds, signs, amount = _KIND_OF_TOPIC, _SIGN_OF_TOPIC, raw.amount
        for note in notifications:
            kind = kinds.get(note.topic)
            if kind is None:
                continue
            change = changes.get(note.originator_id)
            if change is None:
                change = changes[note.originator_id] = BalanceChange("", ZERO, 0)
            sign = signs[note.topic]
            if sign:
                change.delta += amount(note) if sign > 0 else -amount(note)
            change.version = note.originator_version
            if kind is Account.Opened:
                opened = raw.fields(note)
                change.account, change.owner = opened["account"], opened["owner"]
                change.status = "open"
            elif kind is Account.Closed:
                change.status = "closed"
        for originator_id, change in changes.items():
            change.aggregate_id = originator_id.hex
        self.view.apply_balances(list(changes.values()), window)
        return True

    def rows(self) -> list[Any]:
        return self.view.balances()


class StatementProjection(LedgerProjection):
    """statement entries: account, position, amount, counterparty, memo (and its writer
    when not its side's default), time, run id."""

    name = "statement"
    topics = (*ACCOUNT_TOPICS, get_topic(Run.Committed))

    def process_batch(self, events: Sequence[Positioned], window: Window) -> None:
        keys = {e.originator_id.hex for e, _ in events if type(e) in SIGNS}
        running = self.view.last_balances(keys)
        entries: list[StatementRow] = []
        links: list[RunLink] = []
        for event, position in events:
            if isinstance(event, Run.Committed):
                links.extend(
                    RunLink(
                        UUID(item["aggregate_id"]).hex,
                        int(item["version"]),
                        str(event.originator_id),
                    )
                    for item in event.events
                )
                continue
            if type(event) not in SIGNS:
                continue
            key = event.originator_id.hex
            kind, _sign = SIGNS[type(event)]
            amount = _signed_amount(event)
            running[key] = running.get(key, ZERO) + amount
            entries.append(
                StatementRow(
                    aggregate_id=key,
                    position=position,
                    version=event.originator_version,
                    kind=kind,
                    amount=amount,
                    balance=running[key],
                    counterparty=getattr(event, "counterparty", None),
                    memo=getattr(event, "memo", ""),
                    time=event.timestamp.isoformat(),
                    memo_by=getattr(event, "memo_by", None),
                )
            )
        self.view.apply_statement(entries, links, window)

    def rows(self) -> list[Any]:
        return self.view.statement_entries()


def _signed_amount(event: AggregateEvent) -> Decimal:
    _kind, sign = SIGNS[type(event)]
    amount: Decimal = getattr(event, "amount", ZERO)
    return sign * amount
