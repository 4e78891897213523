"""The catalog is derived from the use-case classes alone; snapshots pin what a model reads."""

from __future__ import annotations

import ast
import inspect
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import Field, ValidationError

from application.bank import BANK_USE_CASES
from application.permissions import Permission
from application.use_case import Example, UseCase
from application.vocabulary import UseCaseDefinitionError
from gateway.core.catalog import Catalog, UnknownUseCaseError

SNAPSHOTS = Path(__file__).parent.parent / "snapshots"


def test_the_directory_is_pinned(catalog: Catalog) -> None:
    assert catalog.directory() == (SNAPSHOTS / "directory.txt").read_text()


def test_the_directory_has_one_line_per_use_case_in_the_seed_format(catalog: Catalog) -> None:
    lines = catalog.directory().splitlines()

    assert "- transfer [write] Send money from one account to another." in lines
    assert "- get_balance [read] The balance of an account, in euros." in lines
    assert len([line for line in lines if line.startswith("- ")]) == len(BANK_USE_CASES)


def test_the_transfer_sheet_is_pinned(catalog: Catalog) -> None:
    expected = json.loads((SNAPSHOTS / "transfer.sheet.json").read_text())

    assert catalog.sheet("transfer").model_dump(mode="json") == expected


def test_every_sheet_is_a_valid_json_schema_that_accepts_a_good_call(catalog: Catalog) -> None:
    good_calls = {
        "open_account": {"account": "dan", "owner": "Dan"},
        "deposit": {"account": "bob", "amount": 5},
        "withdraw": {"account": "bob", "amount": 5.5, "memo": "cash"},
        "transfer": {"payer": "alice", "payee": "bob", "amount": 10},
        "get_balance": {"account": "alice"},
        "list_accounts": {},
        "statement": {"account": "alice", "limit": 5},
        "close_account": {"account": "carla"},
    }
    for name, arguments in good_calls.items():
        schema = catalog.sheet(name).parameters
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.validate(arguments, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {"payer": "alice", "payee": "bob"}, catalog.sheet("transfer").parameters
        )


def test_sheets_come_in_the_order_asked_and_an_unknown_name_is_refused(catalog: Catalog) -> None:
    assert [s.name for s in catalog.sheets(["deposit", "transfer"])] == ["deposit", "transfer"]
    with pytest.raises(UnknownUseCaseError, match="no use case frobnicate"):
        catalog.sheets(["transfer", "frobnicate"])


def test_the_stubs_compile_and_every_function_is_keyword_only_and_typed(catalog: Catalog) -> None:
    namespace: dict[str, Any] = {}
    exec(compile(catalog.stubs, "stubs.pyi", "exec"), namespace)

    for use_case in BANK_USE_CASES:
        signature = inspect.signature(namespace[use_case.name])
        assert list(signature.parameters) == list(use_case.model_fields)
        for parameter in signature.parameters.values():
            assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
            assert parameter.annotation is not inspect.Parameter.empty
        assert signature.return_annotation is not inspect.Signature.empty
    tree = ast.parse(catalog.stubs)
    assert {n.name for n in tree.body if isinstance(n, ast.ClassDef)} == {
        "AccountView",
        "TransferReceipt",
        "StatementEntry",
    }


def test_stubs_show_defaults_and_accept_numbers_for_amounts(catalog: Catalog) -> None:
    assert (
        "def transfer(*, payer: str, payee: str, amount: Decimal | int | float, memo: str = '')"
        " -> TransferReceipt:" in catalog.stubs
    )
    assert (
        "def statement(*, account: str, limit: int = 20) -> list[StatementEntry]:" in catalog.stubs
    )


def test_a_field_without_a_description_fails_when_the_class_is_defined() -> None:
    with pytest.raises(UseCaseDefinitionError, match=r"^Refund\.amount: field has no description$"):

        class Refund(UseCase[Decimal]):
            """Give money back."""

            name = "refund"
            kind = "write"

            amount: Decimal

            def perform(self, uow: Any) -> Decimal:
                return self.amount


def test_a_field_of_a_type_the_catalog_cannot_express_fails_when_the_class_is_defined() -> None:
    with pytest.raises(UseCaseDefinitionError, match=r"^Batch\.payees: type list\[str\] cannot"):

        class Batch(UseCase[int]):
            """Pay many."""

            name = "batch"
            kind = "write"

            payees: list[str] = Field(description="Who receives.")

            def perform(self, uow: Any) -> int:
                return len(self.payees)


def test_a_use_case_without_a_docstring_or_kind_fails_when_the_class_is_defined() -> None:
    with pytest.raises(UseCaseDefinitionError, match="Silent: a use case needs a docstring"):

        class Silent(UseCase[int]):
            name = "silent"
            kind = "read"

            def perform(self, uow: Any) -> int:
                return 0

    with pytest.raises(UseCaseDefinitionError, match="Vague: kind must be 'read' or 'write'"):

        class Vague(UseCase[int]):
            """Do something."""

            name = "vague"
            kind = "maybe"  # type: ignore[assignment]

            def perform(self, uow: Any) -> int:
                return 0


def test_two_use_cases_with_one_name_are_refused() -> None:
    with pytest.raises(ValueError, match="two use cases are named transfer"):
        Catalog("header", [*BANK_USE_CASES, BANK_USE_CASES[3]])


def test_every_amount_a_write_takes_counts_toward_the_cap_on_money_moved(
    catalog: Catalog,
) -> None:
    for name in catalog.names:
        use_case = catalog.get(name)
        amounts = [f for f, info in use_case.model_fields.items() if info.annotation is Decimal]
        if use_case.kind == "write":
            assert amounts == ([use_case.moves_amount] if amounts else []), name


def test_every_text_argument_is_one_printable_line(catalog: Catalog) -> None:
    texts = 0
    for name in catalog.names:
        for field, schema in catalog.sheet(name).parameters["properties"].items():
            if "string" not in json.dumps(schema):
                continue
            texts += 1
            with pytest.raises(ValidationError, match=f"{field}\n.*the control character U"):
                catalog.get(name).model_validate({field: "a\x00"})
    assert texts >= 8


@pytest.mark.parametrize(
    ("example", "says"),
    [
        (Example("Pay erin."), "'Pay erin.' needs a program or a question, not both"),
        (
            Example("Pay erin.", program="transfer(", question="How much?"),
            "needs a program or a question, not both",
        ),
        (Example("Pay erin.", program="transfer(payee=)"), "the program of 'Pay erin.' is not"),
        (
            Example("Pay erin.", program="x = 1", then=("8.", "x = 2")),
            "has a follow-up but asks no question",
        ),
    ],
)
def test_an_example_without_a_usable_program_fails_when_the_class_is_defined(
    example: Example, says: str
) -> None:
    with pytest.raises(UseCaseDefinitionError, match=f"^Tip\\.examples: .*{re.escape(says)}"):

        class Tip(UseCase[Decimal]):
            """Leave a tip."""

            name = "tip"
            kind = "write"
            permission = Permission.of("customer")
            examples = (example,)

            def perform(self, uow: Any) -> Decimal:
                return Decimal(0)
