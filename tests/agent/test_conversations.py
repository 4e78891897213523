"""Conversations live in the store: any gateway process continues them; only owners write."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from uuid import uuid4

import pytest

from application import principals
from application.ledger import Ledger
from application.principals import PrincipalView
from application.store_config import eventsourcing_env
from domain.conversation import Conversation
from domain.principal import principal_id
from gateway.agent import Agent
from gateway.core.catalog import Catalog
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from tests.agent import fake_llm as llm
from tests.agent.answers import voice
from tests.agent.conftest import config_for
from tests.agent.fake_llm import FakeLLM
from tests.conftest import Clock
from tests.gateway.conftest import make_gateway

PAY_BOB = 'transfer(payer="alice", payee="bob", amount=5)'


@pytest.fixture
def two_processes(
    tmp_path: Path, catalog: Catalog, sandbox: Sandbox, clock: Clock
) -> Iterator[tuple[Gateway, Gateway]]:
    """Two gateways, each with its own ledger object, on one SQLite file."""
    env = eventsourcing_env(f"sqlite:///{tmp_path / 'shared.db'}")
    with Ledger(env=env) as first, Ledger(env=env) as second:
        one = make_gateway(first, catalog, sandbox, clock)
        seed(one)
        yield one, make_gateway(second, catalog, sandbox, clock)


def test_another_gateway_process_continues_the_conversation_and_answers_it(
    two_processes: tuple[Gateway, Gateway], fake_llm: FakeLLM
) -> None:
    one, two = two_processes
    alice = principals.find(one.ledger, "alice")
    assert alice is not None
    fake_llm.push(llm.program(PAY_BOB))
    turn = Agent(one, config_for(fake_llm)).message(alice, "Pay bob 5")
    two.confirm(alice, turn["proposal"]["id"], turn["proposal"]["preview_hash"])

    fake_llm.push(llm.question("Anything else?"))
    later = Agent(two, config_for(fake_llm)).message(alice, "Thanks", turn["conversation_id"])

    assert later["turn"] == 2
    context = fake_llm.requests[-1]["messages"]
    assert context[1]["content"] == "Pay bob 5"
    assert "committed, 2 events appended" in context[3]["content"]
    fake_llm.push(llm.reply("Bob got 5 euros.", "success"))
    read = Agent(one, config_for(fake_llm)).conversation(alice, turn["conversation_id"])
    assert [t["kind"] for t in read["turns"]] == ["program", "question"]
    assert voice(read["turns"][0]["answer"]) == "Bob got 5 euros."


def test_only_the_owner_continues_a_conversation_and_owner_auditor_admin_read_it(
    agent: Agent, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    fake_llm.push(llm.question("How much?"))
    turn = agent.message(who("alice"), "Pay bob")
    conversation_id = turn["conversation_id"]

    for reader in ("alice", "auditor", "admin"):
        assert agent.conversation(who(reader), conversation_id)["owner"] == "alice"
    for writer in ("bob", "auditor", "admin", "teller"):
        with pytest.raises(GatewayError) as refused:
            agent.message(who(writer), "5", conversation_id)
        assert refused.value.kind == "forbidden"
    for stranger in ("bob", "teller"):
        with pytest.raises(GatewayError) as refused:
            agent.conversation(who(stranger), conversation_id)
        assert refused.value.kind == "forbidden"
    # Not an id; no aggregate; an aggregate that is not a conversation (alice's principal).
    for unknown in ("not-a-uuid", str(uuid4()), str(principal_id("alice"))):
        with pytest.raises(GatewayError) as refused:
            agent.conversation(who("alice"), unknown)
        assert refused.value.kind == "not-found"


def test_an_auditor_reads_what_is_there_without_calling_the_model(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    fake_llm.push(llm.program(PAY_BOB))
    turn = agent.message(alice, "Pay bob 5")
    gateway.confirm(alice, turn["proposal"]["id"], turn["proposal"]["preview_hash"])
    calls = len(fake_llm.requests)

    read = agent.conversation(who("auditor"), turn["conversation_id"])

    assert read["turns"][0]["outcome"]["status"] == "committed"
    assert read["turns"][0]["answer"] is None
    assert len(fake_llm.requests) == calls


def test_an_answer_that_failed_is_left_for_a_later_reading(
    agent: Agent, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    fake_llm.push(llm.program('get_balance(account="alice")'), llm.error(500, "answerer down"))

    turn = agent.message(alice, "My balance?")

    assert turn["outcome"]["result"] == "100.00"  # the gateway's fields are there regardless
    assert turn["answer"] is None
    assert "answerer down" in turn["answer_error"]
    fake_llm.push(llm.reply("You have 100.00 euros.", "success"))
    read = agent.conversation(alice, turn["conversation_id"])["turns"][0]
    assert voice(read["answer"]) == "You have 100.00 euros."
    assert "answer_error" not in read


def test_a_turn_appended_meanwhile_by_another_process_is_kept(
    agent: Agent, gateway: Gateway, fake_llm: FakeLLM, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    fake_llm.push(llm.question("How much?"))
    turn = agent.message(alice, "Pay bob")
    stale = agent.conversations.get(alice, turn["conversation_id"], writing=True)
    fresh = agent.conversations.get(alice, turn["conversation_id"], writing=True)
    agent.conversations.append(fresh, lambda c: c.ask("from elsewhere", "Who?", []))

    saved = agent.conversations.append(stale, lambda c: c.ask("from here", "What?", []))

    assert [t.request for t in saved.turns] == ["Pay bob", "from elsewhere", "from here"]
    stored: object = gateway.ledger.repository.get(saved.id)
    assert isinstance(stored, Conversation)
    assert [t.number for t in stored.turns] == [1, 2, 3]
