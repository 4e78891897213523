"""JSON plans: checked whole before anything runs, then the same preview, confirm, commit path."""
# ruff: noqa: E501 (the table keeps one bad plan per line)

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest

from application.principals import PrincipalView
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from tests.gateway.conftest import accounts_state


def plan(*steps: dict[str, Any]) -> str:
    return json.dumps({"steps": list(steps)})


def test_a_plan_previews_confirms_and_commits_like_a_program(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    alice = who("alice")
    text = plan(
        {
            "tool": "transfer",
            "args": {"payer": "alice", "payee": "bob", "amount": 10},
            "result": "paid",
        },
        {"tool": "get_balance", "args": {"account": {"$ref": "paid.payer"}}, "result": "left"},
    )

    proposal = gateway.propose(alice, "plan", text)
    outcome = gateway.confirm(alice, proposal.id, proposal.preview_hash)

    assert proposal.language == "plan"
    assert proposal.preview.result == "90.00"
    assert [c.name for c in proposal.preview.calls] == ["transfer", "get_balance"]
    assert (outcome.status, outcome.changed) == ("committed", 2)


@pytest.mark.parametrize(
    ("steps", "error"),
    [
        ([], "plan: steps: 0 items, where at least 1 are allowed"),
        ([{"tool": "rm_rf", "args": {}}], "plan: tool: 'rm_rf' is not one of"),
        ([{"tool": "transfer", "args": {"payer": "alice", "payee": "bob"}}], "plan: args: 'amount' is a required property (step 1)"),
        ([{"tool": "transfer", "args": {"payer": "alice", "payee": "bob", "amount": -1}}], "plan: args.amount: -1 is less than or equal to the minimum of 0 (step 1)"),
        ([{"tool": "get_balance", "args": {"account": {"$ref": "later"}}}, {"tool": "list_accounts", "args": {}, "result": "later"}], "plan: get_balance.account: reference later names no earlier step's result (step 1)"),
        ([{"tool": "statement", "args": {"account": "alice"}, "result": "s"}, {"tool": "transfer", "args": {"payer": "alice", "payee": {"$ref": "s.counterparty"}, "amount": 1}}], "plan: transfer.payee: statement results have no field counterparty (step 2)"),
        ([{"tool": "list_accounts", "args": {}, "result": "a"}, {"tool": "transfer", "args": {"payer": "alice", "payee": {"$ref": "a"}, "amount": 1}}], "transfer: payee may not be taken from text"),
        ([{"tool": "get_balance", "args": {"account": "alice"}, "result": "b"}, {"tool": "get_balance", "args": {"account": {"$ref": "b.owner"}}}], "plan: get_balance.account: get_balance results have no field owner (step 2)"),
        ([{"tool": "get_balance", "args": {"account": "alice"}, "extra": True}], "plan: Additional properties are not allowed ('extra' was unexpected) (step 1)"),
        ([{"tool": "get_balance", "args": {"account": "alice"}, "result": "b"}, {"tool": "get_balance", "args": {"account": "alice"}, "result": "b"}], "plan: result name b is already taken by step 1 (step 2)"),
    ],
)  # fmt: skip
def test_a_bad_plan_is_refused_whole_before_any_step_runs(
    gateway: Gateway, who: Callable[[str], PrincipalView], steps: list[Any], error: str
) -> None:
    before = accounts_state(gateway.ledger)
    # A good first step would move money if anything ran.
    text = json.dumps({"steps": steps})

    with pytest.raises(GatewayError) as refused:
        gateway.propose(who("alice"), "plan", text)

    assert refused.value.kind == "invalid-program"
    assert str(refused.value).startswith(error)
    assert accounts_state(gateway.ledger) == before


def test_a_plans_runtime_refusal_names_its_step(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    text = plan(
        {"tool": "transfer", "args": {"payer": "alice", "payee": "bob", "amount": 10}},
        {"tool": "transfer", "args": {"payer": "alice", "payee": "dan", "amount": 10}},
    )

    with pytest.raises(GatewayError) as refused:
        gateway.propose(who("alice"), "plan", text)

    assert (refused.value.kind, str(refused.value)) == (
        "refused",
        "transfer: no account dan (step 2)",
    )


def test_the_plan_schema_is_generated_from_the_principals_catalog(
    gateway: Gateway, who: Callable[[str], PrincipalView]
) -> None:
    schema = gateway.plan_schema(who("auditor"))
    jsonschema.Draft202012Validator.check_schema(schema)
    tools = [
        s["properties"]["tool"]["const"] for s in schema["properties"]["steps"]["items"]["oneOf"]
    ]

    assert tools == ["get_balance", "list_accounts", "statement"]
    assert schema["properties"]["steps"]["maxItems"] == 50
    good = {"steps": [{"tool": "get_balance", "args": {"account": "alice"}, "result": "b"}]}
    jsonschema.validate(good, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"steps": [{"tool": "transfer", "args": {}}]}, schema)
