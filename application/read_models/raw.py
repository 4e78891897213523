"""Reading the few fields a projection needs (an amount, plain strings) straight from
stored events, without building domain event objects: the fast path of a rebuild.

It applies only where the log holds the plain JSON of eventsourcing's JSONTranscoder (no
cipher, no compressor); anywhere else the projections decode whole events. A test keeps
the two paths equal on the same log.
"""

from __future__ import annotations

import json
from decimal import Decimal

from eventsourcing.persistence import JSONTranscoder, Notification

from application.ledger import Ledger

_AMOUNT = b'"amount":{"_type_":"decimal_str","_data_":"'


def plain_json(ledger: Ledger) -> bool:
    mapper = ledger.mapper
    return (
        mapper.cipher is None
        and mapper.compressor is None
        and (isinstance(mapper.transcoder, JSONTranscoder))
    )


def amount(notification: Notification) -> Decimal:
    state = notification.state
    start = state.find(_AMOUNT)
    if start < 0:
        return Decimal(str(json.loads(state)["amount"]["_data_"]))
    start += len(_AMOUNT)
    return Decimal(state[start : state.index(b'"', start)].decode())


def fields(notification: Notification) -> dict[str, str]:
    """The plain string fields of an event (a name, an owner, ...)."""
    state = json.loads(notification.state)
    return {key: value for key, value in state.items() if isinstance(value, str)}
