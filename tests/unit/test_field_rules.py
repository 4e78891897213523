"""A use case states its rules on its own fields and class; a rule that cannot apply is refused."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated, Any

import pytest
from pydantic import Field

from application.bank import BANK_USE_CASES
from application.bank.payment_policy import PAYMENT
from application.bank.types import AccountName, Amount, Memo
from application.field_rules import MovesMoney, Owned
from application.permissions import STAFF, Permission
from application.use_case import UseCase
from application.vocabulary import UseCaseDefinitionError


def test_the_bank_states_its_rules_on_its_fields_and_classes() -> None:
    rules = {
        u.name: (u.owned, tuple(u.guarded), u.moves_amount, u.max_calls) for u in BANK_USE_CASES
    }

    assert rules == {
        "open_account": ((), (), "initial_deposit", 5),
        "deposit": ((), (), "amount", 10),
        "withdraw": (("account",), (), "amount", 10),
        "transfer": (("payer",), ("payee", "amount"), "amount", 10),
        "get_balance": (("account",), (), None, None),
        "list_accounts": ((), (), None, None),
        "statement": (("account",), (), None, None),
        "close_account": (("account",), (), None, 5),
    }
    transfer = next(u for u in BANK_USE_CASES if u.name == "transfer")
    assert transfer.guarded["payee"] is transfer.guarded["amount"] is PAYMENT
    assert transfer.literal_only == ()


def test_two_amounts_that_move_money_are_refused_when_the_class_is_defined() -> None:
    with pytest.raises(
        UseCaseDefinitionError,
        match=r"^Split: MovesMoney on amount and fee; a use case moves one amount$",
    ):

        class Split(UseCase[Decimal]):
            """Pay with a fee."""

            name = "split"
            kind = "write"
            permission = Permission.of(*STAFF)

            amount: Annotated[Amount, MovesMoney] = Field(description="How much.")
            fee: Annotated[Amount, MovesMoney] = Field(description="The fee.")

            def perform(self, uow: Any) -> Decimal:
                return self.amount


def test_money_moved_by_a_field_that_is_no_amount_is_refused() -> None:
    with pytest.raises(
        UseCaseDefinitionError,
        match=r"^Note\.memo: MovesMoney marks an amount \(a Decimal\), not str$",
    ):

        class Note(UseCase[int]):
            """Write a note."""

            name = "note"
            kind = "write"
            permission = Permission.of(*STAFF)

            memo: Annotated[Memo, MovesMoney] = Field(description="The note.")

            def perform(self, uow: Any) -> int:
                return 0


def test_an_owned_field_that_names_no_account_is_refused() -> None:
    with pytest.raises(
        UseCaseDefinitionError,
        match=r"^Tag\.memo: Owned marks an account argument \(an AccountName\), not str$",
    ):

        class Tag(UseCase[int]):
            """Tag an account."""

            name = "tag"
            kind = "write"
            permission = Permission.of("customer")

            account: AccountName = Field(description="The account.")
            memo: Annotated[Memo, Owned] = Field(description="The tag.")

            def perform(self, uow: Any) -> int:
                return 0


@pytest.mark.parametrize(
    ("attribute", "value", "marker"),
    [
        ("moves_amount", "amount", "MovesMoney"),
        ("literal_only", ("payee",), "LiteralOnly"),
        ("owned", ("payer",), "Owned"),
    ],
)
def test_a_rule_written_by_name_instead_of_on_its_field_is_refused(
    attribute: str, value: object, marker: str
) -> None:
    body = {
        "__doc__": "Pay.",
        "__module__": __name__,
        "__annotations__": {"payer": "AccountName", "payee": "AccountName", "amount": "Amount"},
        "name": "pay",
        "kind": "write",
        "permission": Permission.of(*STAFF),
        "payer": Field(description="Who pays."),
        "payee": Field(description="Who receives."),
        "amount": Field(description="How much."),
        "perform": _nothing,
        attribute: value,
    }
    with pytest.raises(
        UseCaseDefinitionError,
        match=rf"^Pay\.{attribute}: mark the field instead, Annotated\[\.\.\., {marker}\]$",
    ):
        type("Pay", (UseCase[None],), body)


@pytest.mark.parametrize("max_calls", [0, -1, 2.5, True, "10"])
def test_a_cap_on_calls_that_is_no_positive_whole_number_is_refused(max_calls: object) -> None:
    shown = re.escape(repr(max_calls))
    with pytest.raises(
        UseCaseDefinitionError,
        match=rf"^Ping\.max_calls: a positive whole number or None, not {shown}$",
    ):
        type(
            "Ping",
            (UseCase[int],),
            {
                "__doc__": "Ping.",
                "__module__": __name__,
                "name": "ping",
                "kind": "read",
                "permission": Permission.of(*STAFF),
                "max_calls": max_calls,
                "perform": _zero,
            },
        )


def _zero(self: Any, uow: Any) -> int:
    return 0


def _nothing(self: Any, uow: Any) -> None:
    return None
