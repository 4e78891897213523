"""Rows built without the dataclasses' __init__ (infrastructure/postgres/rows.py) are the
same objects the constructors make."""

from __future__ import annotations

import dataclasses
from uuid import uuid4

import pytest
from eventsourcing.persistence import Notification, StoredEvent

from infrastructure.postgres import rows

ID = uuid4()


def test_a_notification_from_a_row_is_the_one_the_constructor_makes() -> None:
    made = rows.notification((7, ID, 3, "domain.account:Account.Deposited", b'{"a":1}'))
    expected = Notification(ID, 3, "domain.account:Account.Deposited", b'{"a":1}', 7)

    assert made == expected and hash(made) == hash(expected) and repr(made) == repr(expected)
    assert dataclasses.asdict(made) == dataclasses.asdict(expected)
    assert dataclasses.replace(made, id=8) == dataclasses.replace(expected, id=8)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.id = 9  # type: ignore[misc]


def test_a_stored_event_from_a_row_is_the_one_the_constructor_makes() -> None:
    made = rows.stored_event(ID, (3, "domain.account:Account.Deposited", b"{}"))
    expected = StoredEvent(ID, 3, "domain.account:Account.Deposited", b"{}")

    assert made == expected and hash(made) == hash(expected) and repr(made) == repr(expected)
    assert type(made) is StoredEvent
