"""Agents propose, people decide: a key's scope is recorded with it, and a key with scope
agent never confirms, rejects or writes directly, whatever it names."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

import pytest

from application import principals
from application.principals import PrincipalError
from domain.principal import ApiKey
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway

TRANSFER = 'transfer(payer="alice", payee="bob", amount=5, memo="agent")\n'


def test_a_key_carries_its_scope(gateway: Gateway) -> None:
    agent = gateway.authenticate(principals.demo_agent_key("alice"))
    person = gateway.authenticate(principals.demo_key("alice"))

    assert (agent.name, agent.scope, agent.decides) == ("alice", "agent", False)
    assert (person.name, person.scope, person.decides) == ("alice", "human", True)
    assert agent.owns == person.owns


def test_one_more_key_for_a_principal_and_its_refusals(gateway: Gateway) -> None:
    ledger = gateway.ledger
    agent_key = principals.issue_key(ledger, "bob", scope="agent")
    assert gateway.authenticate(agent_key).scope == "agent"
    dana = principals.register(ledger, "dana", "teller", scope="agent")
    assert gateway.authenticate(dana).scope == "agent"

    before = ledger.recorder.max_notification_id()
    with pytest.raises(PrincipalError, match="no principal mallory"):
        principals.issue_key(ledger, "mallory", scope="agent")
    with pytest.raises(PrincipalError, match="scope 'robot' is not one of human, agent"):
        principals.issue_key(ledger, "bob", scope="robot")
    with pytest.raises(PrincipalError, match="scope 'robot' is not one of human, agent"):
        principals.register(ledger, "erin", "customer", scope="robot")
    with pytest.raises(PrincipalError, match="this key is already issued"):
        principals.issue_key(ledger, "bob", scope="human", key=agent_key)
    assert ledger.recorder.max_notification_id() == before


def test_a_key_issued_before_scopes_existed_is_a_persons(gateway: Gateway) -> None:
    """Keys were all people's before scopes: the stored v1 event upcasts to scope human."""
    mapper = gateway.ledger.mapper
    key = ApiKey(key_hash="0" * 64, principal="alice", scope="agent")
    [issued] = key.collect_events()
    stored = mapper.to_stored_event(issued)
    state = json.loads(stored.state)
    assert (state.pop("scope"), state.pop("expires_at"), state.pop("class_version")) == (
        "agent",
        None,
        3,
    )
    old = replace(stored, state=json.dumps(state).encode())  # as a v1 event was stored

    upcast = mapper.to_domain_event(old)
    assert upcast.scope == "human"  # type: ignore[attr-defined]
    assert upcast.expires_at is None  # type: ignore[attr-defined]


def test_an_agent_proposes_but_never_decides(gateway: Gateway) -> None:
    agent = gateway.authenticate(principals.demo_agent_key("alice"))
    person = gateway.authenticate(principals.demo_key("alice"))
    proposal = gateway.propose(agent, "python", TRANSFER)
    before = gateway.ledger.recorder.max_notification_id()

    attempts: tuple[Callable[[], object], ...] = (
        lambda: gateway.confirm(agent, proposal.id, proposal.preview_hash),
        lambda: gateway.reject(agent, proposal.id),
        lambda: gateway.call(agent, "transfer", {"payer": "alice", "payee": "bob", "amount": 5}),
    )
    for attempt in attempts:
        with pytest.raises(GatewayError) as refused:
            attempt()
        assert refused.value.kind == "forbidden"
        assert "scope agent may" in str(refused.value)
    assert gateway.ledger.recorder.max_notification_id() == before
    assert gateway.proposal(agent, proposal.id).status == "pending"

    # It may read directly, and the person confirms its proposal.
    assert gateway.call(agent, "get_balance", {"account": "alice"}).result == "100.00"
    outcome = gateway.confirm(person, proposal.id, proposal.preview_hash)
    assert outcome.status == "committed"
    assert gateway.proposal(agent, proposal.id).confirmed_by == "alice"
