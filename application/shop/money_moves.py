"""The money a shop program moves, read from the events its preview would append: the
shop's `Domain.money_moves`.

A payment is the customer paying the shop the order's total; a refund (an order cancelled
after it was paid) is the shop paying the customer back. The shop itself is the party
`shop`; an order cancelled unpaid, and every other event, moves no money.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from application.money_moves import MoneyMove
from domain.shop.money import CURRENCY, fmt

# The party every payment goes to and every refund comes from.
SHOP = "shop"


def money_moves(events: Iterable[Mapping[str, Any]]) -> list[MoneyMove]:
    """The moves of previewed events (as a preview shows them: order, type, data), in their
    order."""
    moves = []
    for event in events:
        data = event.get("data") or {}
        kind, customer = event.get("type"), data.get("customer")
        payer: str | None
        payee: str | None
        if kind == "Paid" and "amount" in data:
            payer, payee, amount = customer, SHOP, data["amount"]
        elif kind == "Cancelled" and Decimal(data.get("refunded") or 0) > 0:
            payer, payee, amount = SHOP, customer, data["refunded"]
        else:
            continue
        moves.append(
            MoneyMove(payer=payer, payee=payee, amount=fmt(Decimal(amount)), currency=CURRENCY)
        )
    return moves
