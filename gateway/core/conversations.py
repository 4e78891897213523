"""Conversations in the store: found by id, read by their owner (or an auditor or admin).

A turn is appended to the conversation as it is in the store now: if another gateway
process appended to it meanwhile, the turn is applied again to the fresh copy. Turns are
independent entries, so a concurrent one does not make this one wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from eventsourcing.persistence import IntegrityError

from application.ledger import Ledger
from application.principals import PrincipalView
from domain.conversation import Conversation
from gateway.core.errors import GatewayError
from gateway.core.policy.decisions import may_read_conversation, may_write_conversation

SAVE_ATTEMPTS = 3


class Conversations:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def start(self, principal: PrincipalView) -> Conversation:
        """A new conversation; it reaches the store with its first turn."""
        return Conversation(owner=principal.name)

    def get(self, principal: PrincipalView, conversation_id: str, *, writing: bool) -> Conversation:
        conversation = self._load(conversation_id)
        allowed = may_write_conversation if writing else may_read_conversation
        if not allowed(principal, conversation.owner):
            raise GatewayError(
                "forbidden",
                f"conversation {conversation_id} belongs to principal {conversation.owner}",
            )
        return conversation

    def append(
        self, conversation: Conversation, change: Callable[[Conversation], None]
    ) -> Conversation:
        """Apply `change` and save; on a concurrent append, apply it to a fresh copy."""
        for _ in range(SAVE_ATTEMPTS):
            change(conversation)
            try:
                self.ledger.save(conversation)
            except IntegrityError:
                conversation = self._load(str(conversation.id))
                continue
            return conversation
        raise GatewayError(
            "conflict",
            f"conversation {conversation.id} is being changed by others; send the message again",
        )

    def _load(self, conversation_id: str) -> Conversation:
        try:
            found: object = self.ledger.load_record(UUID(str(conversation_id)))
        except (ValueError, AggregateNotFoundError):
            raise GatewayError("not-found", f"no conversation {conversation_id}") from None
        if not isinstance(found, Conversation):
            raise GatewayError("not-found", f"no conversation {conversation_id}")
        return found
