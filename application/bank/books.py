"""The bank's books, as `sluice audit verify` checks them: each balance recomputed from the
accounts' events equals the balances read model, the money in the accounts is what was
deposited less what was withdrawn, and no balance ever went below zero."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import TYPE_CHECKING
from uuid import UUID

from eventsourcing.domain import AggregateEvent
from eventsourcing.utils import get_topic

from application.bank.records import BALANCES, balances
from application.bank.statement import SIGNS
from application.books import Check
from domain.account import Account
from domain.money import ZERO

if TYPE_CHECKING:
    from application.read_models.service import ReadModels

ACCOUNT_EVENT_TOPICS = frozenset(get_topic(kind) for kind in SIGNS)


class BankBooks:
    """One verification's reading of the accounts' events (`application.books.Books`)."""

    projection = BALANCES
    topics = ACCOUNT_EVENT_TOPICS

    def __init__(self) -> None:
        self.balances: dict[UUID, Decimal] = defaultdict(lambda: ZERO)
        self.names: dict[UUID, str] = {}
        self.went_negative: list[str] = []
        self.deposits = self.withdrawals = ZERO

    def read(self, event: AggregateEvent, position: int) -> None:
        if isinstance(event, Account.Opened):
            self.names[event.originator_id] = event.account
        _kind, sign = SIGNS[type(event)]
        amount: Decimal = getattr(event, "amount", ZERO)
        self.balances[event.originator_id] += sign * amount
        if isinstance(event, Account.Deposited):
            self.deposits += amount
        elif isinstance(event, Account.Withdrawn):
            self.withdrawals += amount
        if self.balances[event.originator_id] < 0:
            self.went_negative.append(
                f"{self.names.get(event.originator_id)} at position {position}"
            )

    def checks(self, read_models: ReadModels) -> list[Check]:
        recomputed = {self.names[key]: value for key, value in self.balances.items()}
        return [
            _same_balances(recomputed, read_models),
            _money_conserved(recomputed, self.deposits, self.withdrawals),
            Check("no negative balance", not self.went_negative, self.went_negative),
        ]


def _same_balances(recomputed: dict[str, Decimal], read_models: ReadModels) -> Check:
    modelled = {row.account: row.balance for row in balances(read_models.store)}
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
