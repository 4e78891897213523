"""The bank's projections: balances (account, owner, balance, status, version), a keyed
record per account, and the statement (each movement with its running balance and the run
that committed it), a history per account (`application.bank.records`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from uuid import UUID

from eventsourcing.domain import AggregateEvent
from eventsourcing.persistence import Notification
from eventsourcing.utils import get_topic

from application.bank.records import (
    BALANCES,
    STATEMENT,
    BalanceRow,
    StatementRow,
    balance_change,
    balance_records,
    balances,
    last_balances,
    statement_entries,
    statement_history,
)
from application.bank.statement import SIGNS
from application.read_models import raw
from application.read_models.projection import LedgerProjection, Positioned
from application.read_models.rows import RunLink
from application.read_models.store import ReadModelStore, Window
from domain.account import Account
from domain.money import ZERO
from domain.run import Run

ACCOUNT_TOPICS = tuple(get_topic(kind) for kind in SIGNS)
_KIND_OF_TOPIC = {get_topic(kind): kind for kind in SIGNS}
_SIGN_OF_TOPIC = {get_topic(kind): sign for kind, (_, sign) in SIGNS.items()}


@dataclass
class _Change:
    """What a batch does to an account's balance: a delta, and what else it tells."""

    delta: Decimal = ZERO
    version: int = 0
    account: str | None = None
    owner: str | None = None
    status: str | None = None


class BalancesProjection(LedgerProjection):
    """balances: account, owner, balance, status, version; a record per account, which each
    window reads as it stands and writes anew."""

    name = BALANCES
    topics = ACCOUNT_TOPICS
    shape = 2  # a keyed record (before: a table of its own)

    def process_batch(self, events: Sequence[Positioned], window: Window) -> None:
        changes: dict[str, _Change] = {}
        for event, _position in events:
            if type(event) not in SIGNS:
                continue
            change = changes.setdefault(event.originator_id.hex, _Change())
            change.delta += _signed_amount(event)
            change.version = event.originator_version
            if isinstance(event, Account.Opened):
                change.account, change.owner, change.status = event.account, event.owner, "open"
            elif isinstance(event, Account.Closed):
                change.status = "closed"
        _write_balances(self.view, changes, window)

    def process_stored(self, notifications: Sequence[Notification], window: Window) -> bool:
        changes: dict[Any, _Change] = {}
        kinds, signs, amount = _KIND_OF_TOPIC, _SIGN_OF_TOPIC, raw.amount
        for note in notifications:
            kind = kinds.get(note.topic)
            if kind is None:
                continue
            change = changes.get(note.originator_id)
            if change is None:
                change = changes[note.originator_id] = _Change()
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
        by_key = {originator_id.hex: change for originator_id, change in changes.items()}
        _write_balances(self.view, by_key, window)
        return True

    def rows(self) -> list[Any]:
        return balances(self.view)


def _write_balances(view: ReadModelStore, changes: dict[str, _Change], window: Window) -> None:
    """Each changed account's record as it stands, with the batch's changes over it."""
    current = balance_records(view, list(changes))
    written = []
    for key, change in changes.items():
        old = current.get(key)
        row = BalanceRow(
            account=change.account or (old.account if old else ""),
            owner=change.owner or (old.owner if old else ""),
            balance=(old.balance if old else ZERO) + change.delta,
            status=change.status or (old.status if old else "open"),
            version=max(change.version, old.version if old else 0),
        )
        written.append(balance_change(key, row))
    view.apply_documents(written, window)


class StatementProjection(LedgerProjection):
    """statement entries: account, position, amount, counterparty, memo (and its writer
    when not its side's default), time, run id."""

    name = STATEMENT
    topics = (*ACCOUNT_TOPICS, get_topic(Run.Committed))
    shape = 2  # a history (before: a table of its own)

    def process_batch(self, events: Sequence[Positioned], window: Window) -> None:
        keys = {e.originator_id.hex for e, _ in events if type(e) in SIGNS}
        running = last_balances(self.view, keys)
        entries: list[StatementRow] = []
        links: list[RunLink] = []
        for event, position in events:
            if isinstance(event, Run.Committed):
                links.extend(
                    RunLink(
                        STATEMENT,
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
        self.view.apply_history([statement_history(entry) for entry in entries], links, window)

    def rows(self) -> list[Any]:
        return statement_entries(self.view)


def _signed_amount(event: AggregateEvent) -> Decimal:
    _kind, sign = SIGNS[type(event)]
    amount: Decimal = getattr(event, "amount", ZERO)
    return sign * amount
