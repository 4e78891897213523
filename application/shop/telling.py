"""The shop's words for a run's events (application/telling.py): an order placed, paid,
shipped or cancelled, stock reserved, released or restocked, in the code's words; a
product's name (staff's) and a supplier's note (that supplier's) quoted with their writers.

Every id, sku, quantity and amount an event holds was checked by the use case that wrote
it (the shop's key rule, its money), so the code may say them; names and notes are texts.
"""

from __future__ import annotations

from typing import Any

from application.results import EventRecord
from application.telling import STAFF, Known, Quoted, Said, Telling, Told


def tell_event(event: EventRecord, _known: Known) -> list[Told] | None:
    key, data, kind = event.account, event.data, event.type
    line = _line(kind, key, data)
    if line is not None:
        return [Said(line)]
    if kind == "Placed":
        told: list[Told] = [Said(f"{key}: placed by {data['customer']}; total {data['total']}")]
        for item in data.get("lines", ()):
            told.append(Said(f"{key}: {item['quantity']} {item['sku']} at {item['price']}"))
        return told
    if kind == "Added":
        return [Said(f"{key}: added at {data['price']}"), Quoted(str(data["name"]), STAFF, "name")]
    if kind == "Restocked":
        supplier = str(data["supplier"])
        told = [Said(f"{key}: restocked {data['quantity']} from {supplier}")]
        if data.get("note"):
            told.append(Quoted(str(data["note"]), supplier, "note"))
        return told
    return None


# The events told in one line of the code's words: `key` is the event's record, the rest
# its data's fields.
LINES = {
    "Paid": "{key}: {customer} paid {amount}",
    "Shipped": "{key}: shipped",
    "Cancelled": "{key}: cancelled; {refunded} refunded to {customer}",
    "Reserved": "{key}: {quantity} reserved for {order}",
    "Released": "{key}: {quantity} released from {order}",
    "Listed": "{key}: lists {sku}",
}


def _line(kind: str, key: str | None, data: dict[str, Any]) -> str | None:
    line = LINES.get(kind)
    return None if line is None else line.format_map({**data, "key": key})


SHOP_TELLING = Telling(event=tell_event)
