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
    "accounts it sees": (decisions.visible_accounts,),
    "decide with its key": (decisions.may_decide, "key"),
    "decide by an elicited answer": (decisions.may_decide, "elicitation"),
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
    # Agents propose, people decide; a person's answer to an MCP question is a person's.
    "decide with its key":          (Y,       N,             Y,     N,           Y,      Y),
    "decide by an elicited answer": (Y,       Y,             Y,     Y,           Y,      Y),
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
    if function is decisions.visible_accounts:
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


def test_a_persons_elicited_answer_decides_an_agents_proposal_and_only_its_own(
    gateway: Gateway,
) -> None:
    """The MCP server asks the facade for an elicited decision; it never builds a person."""
    agent = gateway.authenticate(principals.demo_agent_key("alice"))
    other_agent = gateway.authenticate(principals.demo_agent_key("bob"))
    accepted = gateway.propose(agent, "python", TRANSFER)
    declined = gateway.propose(agent, "python", TRANSFER)
    with pytest.raises(GatewayError) as by_key:
        gateway.confirm(agent, accepted.id, accepted.preview_hash)
    with pytest.raises(GatewayError) as not_its_own:
        gateway.confirm_elicited(other_agent, accepted.id, accepted.preview_hash)

    outcome = gateway.confirm_elicited(agent, accepted.id, accepted.preview_hash)
    rejected = gateway.reject_elicited(agent, declined.id)

    assert (by_key.value.kind, not_its_own.value.kind) == ("forbidden", "forbidden")
    assert "scope agent may propose but never confirm" in str(by_key.value)
    assert str(not_its_own.value) == f"proposal {accepted.id} belongs to principal alice"
    assert outcome.status == "committed" and outcome.changed == 2
    assert gateway.proposal(agent, accepted.id).confirmed_by == "alice"
    assert (rejected.status, rejected.decided_by) == ("rejected", "alice")
