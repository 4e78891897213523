"""The set of accounts, versioned: one event per account opened.

A program that lists the accounts decides on the whole set, not only on the accounts it
reads; the version of this aggregate is what its commit is guarded by, so an account opened
since the preview makes the commit a conflict (no phantom).
"""

from __future__ import annotations

from typing import ClassVar
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event

REGISTRY_ID = uuid5(NAMESPACE_URL, "sluice:accounts")


class AccountRegistry(Aggregate):
    # How a refused commit names it, and how the application keeps it (application/kinds.py):
    # read by every listing, so cached, and snapshotted (one event per account).
    subject: ClassVar[str] = "the set of accounts"
    cached: ClassVar[bool] = True
    snapshotted: ClassVar[bool] = True

    class Started(Aggregate.Created):
        pass

    class Registered(Aggregate.Event):
        account: str

    @staticmethod
    def create_id() -> UUID:
        return REGISTRY_ID

    @event(Started)
    def __init__(self) -> None:
        self.accounts = 0
        # Every account registered, in the order they were opened: what a listing reads.
        self.names: list[str] = []

    def register(self, account: str) -> None:
        self._registered(account)

    @event(Registered)
    def _registered(self, account: str) -> None:
        self.accounts += 1
        self.names.append(account)
