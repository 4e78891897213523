"""The first answer to an Idempotency-Key: the same request gets it again, nothing more."""

from __future__ import annotations

from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

from eventsourcing.domain import Aggregate, event


def request_id(principal: str, key: str) -> UUID:
    """Keys belong to their principal: two principals may use the same key."""
    return uuid5(NAMESPACE_URL, f"sluice:idempotency:{principal}:{key}")


class IdempotentRequest(Aggregate):
    class Answered(Aggregate.Created):
        principal: str
        key: str
        request_hash: str
        status: int
        body: dict[str, Any]

    @staticmethod
    def create_id(
        principal: str, key: str, request_hash: str, status: int, body: dict[str, Any]
    ) -> UUID:
        return request_id(principal, key)

    @event(Answered)
    def __init__(
        self, principal: str, key: str, request_hash: str, status: int, body: dict[str, Any]
    ) -> None:
        self.principal = principal
        self.key = key
        self.request_hash = request_hash
        self.status = status
        self.body = body
