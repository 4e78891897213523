"""Every decision of the gateway's policy in one table: a kind of principal x a question.

gateway/core/policy/decisions.py is the one module that answers "may this principal ...?"; this
table is its documentation. A new question must come with its row (the last but one test).
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Any

import pytest

from application import principals
from application.bank.accounts import OpenAccount
from application.bank.movements import Transfer
from application.bank.queries import GetBalance
from application.principals import PrincipalView
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.policy import decisions

CUSTOMER = PrincipalView(name="alice", role="customer", owns=frozenset({"alice"}))
TELLER = PrincipalView(name="teller", role="teller", owns=frozenset())
PRINCIPALS = {
    "customer": CUSTOMER,
    "customer/agent": replace(CUSTOMER, scope="agent"),
    "teller": TELLER,
    "teller/agent": replace(TELLER, scope="agent"),
    "auditor": PrincipalView(name="auditor", role="auditor", owns=frozenset()),
    "admin": PrincipalView(name="admin", role="admin", owns=frozenset()),
}
OWN = object()  # stands for the asking principal's own name: the owner of a run or conversation
OTHER = "carla"  # the owner of someone else's run or conversation
FROM_ALICE = {"payer": "alice", "payee": "bob", "amount": "1.00"}
FROM_BOB = {"payer": "bob", "payee": "alice", "amount": "1.00"}
# SLUICE_MCP_TRUSTED_CLIENTS naming every principal of the table, or none of them.
EVERY_CLIENT = frozenset(p.name for p in PRINCIPALS.values())
NO_CLIENT: frozenset[str] = frozenset()

# A question: the policy's function and what it is asked about, beside the principal.
QUESTIONS: dict[str, tuple[Any, ...]] = {
    "call open_account": (decisions.may_call, OpenAccount),
    "call transfer": (decisions.may_call, Transfer),
    "call get_balance": (decisions.may_call, GetBalance),
    "call open_account directly": (decisions.may_call_directly, OpenAccount),
    "call transfer directly": (decisions.may_call_directly, Transfer),
    "call get_balance directly": (decisions.may_call_directly, GetBalance),
    "transfer from alice": (decisions.call_refusal, Transfer, FROM_ALICE),
    "transfer from bob": (decisions.call_refusal, Transfer, FROM_BOB),
    "name bob as payer": (decisions.ownership_refusal, Transfer, FROM_BOB),
    "accounts it sees": (decisions.visible_owned,),
    "decide with its key": (decisions.may_decide,),
    "decide by a trusted client's form": (decisions.may_decide_by_form, EVERY_CLIENT),
    "decide by another client's form": (decisions.may_decide_by_form, NO_CLIENT),
    "decide its own run": (decisions.may_decide_run, OWN),
    "decide another's run": (decisions.may_decide_run, OTHER),
    "read its own run": (decisions.may_read_run, OWN),
    "read another's run": (decisions.may_read_run, OTHER),
    "read any run's record": (decisions.may_read_any_run,),
    "read the event log": (decisions.may_read_events,),
    "read its own conversation": (decisions.may_read_conversation, OWN),
    "read another's conversation": (decisions.may_read_conversation, OTHER),
    "write its own conversation": (decisions.may_write_conversation, OWN),
    "write another's conversation": (decisions.may_write_conversation, OTHER),
    "see /health's details": (decisions.sees_health_details,),
}
Y, N = True, False
KINDS = tuple(PRINCIPALS)
# fmt: off
TABLE: dict[str, tuple[object, ...]] = {
    #                               customer customer/agent teller teller/agent auditor admin
    "call open_account":            (N,       N,             Y,     Y,           N,      Y),
    "call transfer":                (Y,       Y,             Y,     Y,           N,      Y),
    "call get_balance":             (Y,       Y,             Y,     Y,           Y,      Y),
    # A direct call commits with no preview to confirm: a write is a person's.
    "call open_account directly":   (N,       N,             Y,     N,           N,      Y),
    "call transfer directly":       (Y,       N,             Y,     N,           N,      Y),
    "call get_balance directly":    (Y,       Y,             Y,     Y,           Y,      Y),
    # A customer reaches only the accounts it owns; the role is asked first.
    "transfer from alice":          (Y,       Y,             Y,     Y,           N,      Y),
    "transfer from bob":            (N,       N,             Y,     Y,           N,      Y),
    "name bob as payer":            (N,       N,             Y,     Y,           Y,      Y),
    "accounts it sees":             ("alice", "alice",       "all", "all",       "all",  "all"),
    # Agents propose, people decide; an MCP client's form only where the operator trusts
    # the client, and never with an agent's key (the agent may answer it itself).
    "decide with its key":          (Y,       N,             Y,     N,           Y,      Y),
    "decide by a trusted client's form": (Y,  N,             Y,     N,           Y,      Y),
    "decide by another client's form":   (N,  N,             N,     N,           N,      N),
    "decide its own run":           (Y,       Y,             Y,     Y,           Y,      Y),
    "decide another's run":         (N,       N,             N,     N,           N,      N),
    "read its own run":             (Y,       Y,             Y,     Y,           Y,      Y),
    "read another's run":           (N,       N,             N,     N,           Y,      Y),
    "read any run's record":        (N,       N,             N,     N,           Y,      Y),
    "read the event log":           (N,       N,             N,     N,           Y,      Y),
    "read its own conversation":    (Y,       Y,             Y,     Y,           Y,      Y),
    "read another's conversation":  (N,       N,             N,     N,           Y,      Y),
    "write its own conversation":   (Y,       Y,             Y,     Y,           Y,      Y),
    "write another's conversation": (N,       N,             N,     N,           N,      N),
    "see /health's details":        (N,       N,             N,     N,           Y,      Y),
}
# fmt: on
CELLS = [(question, kind) for question in TABLE for kind in KINDS]
TRANSFER = 'transfer(payer="alice", payee="bob", amount=5, memo="agent")\n'


def ask(question: str, principal: PrincipalView) -> object:
    function, *about = QUESTIONS[question]
    answer = function(principal, *(principal.name if a is OWN else a for a in about))
    if function in (decisions.call_refusal, decisions.ownership_refusal):
        return answer is None  # no refusal: allowed
    if function is decisions.visible_owned:
        return "all" if answer is None else ",".join(sorted(answer))
    return answer


@pytest.mark.parametrize(("question", "kind"), CELLS)
def test_the_policy_answers_as_the_table_says(question: str, kind: str) -> None:
    expected = TABLE[question][KINDS.index(kind)]

    assert ask(question, PRINCIPALS[kind]) == expected


def test_every_question_of_the_policy_has_its_row() -> None:
    """A function of the policy module that answers a question is in the table."""
    wording = {"denial", "ownership_denial"}  # the text of a refusal, not a decision
    answers = {
        name
        for name, function in inspect.getmembers(decisions, inspect.isfunction)
        if function.__module__ == decisions.__name__ and name not in wording
    }

    assert answers == {QUESTIONS[q][0].__name__ for q in TABLE}
    assert set(TABLE) == set(QUESTIONS)


def test_a_form_answer_decides_only_on_a_trusted_client_with_a_persons_key(
    gateway: Gateway,
) -> None:
    """The MCP server asks the facade for a decision by a form; it never builds a person,
    and an answer on a client the operator did not name, or with an agent's key, decides
    nothing, with the proposal left pending."""
    agent = gateway.authenticate(principals.demo_agent_key("alice"))
    person = gateway.authenticate(principals.demo_key("alice"))
    bob = gateway.authenticate(principals.demo_key("bob"))
    accepted = gateway.propose(agent, "python", TRANSFER)
    declined = gateway.propose(agent, "python", TRANSFER)
    refusals = []
    for trusted, who in ((set(), person), ({"alice"}, agent), ({"alice", "bob"}, bob)):
        gateway.trusted_clients = frozenset(trusted)
        with pytest.raises(GatewayError) as refused:
            gateway.confirm_elicited(who, accepted.id, accepted.preview_hash)
        refusals.append(refused.value)
    assert gateway.proposal(person, accepted.id).status == "pending"

    gateway.trusted_clients = frozenset({"alice"})
    outcome = gateway.confirm_elicited(person, accepted.id, accepted.preview_hash)
    rejected = gateway.reject_elicited(person, declined.id)

    untrusted, agent_key, not_its_own = refusals
    assert {r.kind for r in refusals} == {"forbidden"}
    assert str(untrusted) == (
        f"proposal {accepted.id}: the MCP client of principal alice is not declared trusted "
        "(SLUICE_MCP_TRUSTED_CLIENTS), so an answer to its form may not confirm; a person "
        "does in the web console or with `sluice confirm`"
    )
    assert "scope agent may propose but never confirm" in str(agent_key)
    assert str(not_its_own) == f"proposal {accepted.id} belongs to principal alice"
    assert outcome.status == "committed" and outcome.changed == 2
    assert gateway.proposal(agent, accepted.id).confirmed_by == "alice"
    assert (rejected.status, rejected.decided_by) == ("rejected", "alice")
