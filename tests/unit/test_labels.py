"""Every value a use case returns is labelled when its class is defined: a fact of the
system, or text a party wrote (and whose); a value without a label is a definition error."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from application.bank import BANK_USE_CASES
from application.labels import Fact, Fields, Items, Leaf, ResultModel, Text, labels_in
from application.permissions import STAFF, Permission
from application.use_case import UseCase
from application.vocabulary import UseCaseDefinitionError


def test_every_bank_result_says_who_wrote_each_of_its_values() -> None:
    labels = {u.name: u.labels() for u in BANK_USE_CASES}

    assert labels["get_balance"] == Leaf(Fact)
    statement = labels["statement"]
    assert isinstance(statement, Items) and isinstance(statement.item, Fields)
    entry = statement.item.fields
    assert entry["counterparty"] == entry["amount"] == Leaf(Fact)
    assert entry["memo"] == Leaf(Text(by="memo_by"))
    listing = labels["list_accounts"]
    assert isinstance(listing, Items) and isinstance(listing.item, Fields)
    assert listing.item.fields["owner"] == Leaf(Text(author="staff"))
    assert {label.kind for label in labels_in(labels["transfer"])} == {"fact", "text"}


def test_a_result_field_without_a_label_is_refused_when_its_class_is_defined() -> None:
    with pytest.raises(UseCaseDefinitionError, match=r"^Receipt\.note: no integrity label"):

        class Receipt(ResultModel):
            """A receipt."""

            amount: Annotated[Decimal, Fact] = Field(description="How much.")
            note: str = Field(description="A note.")


def test_text_naming_its_writer_in_a_field_that_does_not_exist_is_refused() -> None:
    with pytest.raises(UseCaseDefinitionError, match=r"names no field of Note$"):

        class Note(ResultModel):
            """A note."""

            text: Annotated[str, Text(by="writer")] = Field(description="The note.")


def test_a_text_label_names_its_writer_one_way() -> None:
    with pytest.raises(UseCaseDefinitionError, match="give by="):
        Text()
    with pytest.raises(UseCaseDefinitionError, match="give by="):
        Text(by="writer", author="staff")


class Plain(BaseModel):
    """Unlabelled."""

    value: int = Field(description="A value.")


def test_a_result_model_that_does_not_check_its_labels_is_refused() -> None:
    with pytest.raises(UseCaseDefinitionError, match=r"^Plain: a result model derives from"):

        class Read(UseCase[Plain]):
            """Read."""

            name = "read"
            kind = "read"
            permission = Permission.of(*STAFF)

            def perform(self, uow: Any) -> Plain:
                return Plain(value=1)


def test_a_scalar_result_without_a_label_is_refused() -> None:
    with pytest.raises(UseCaseDefinitionError, match=r"^Count result: no integrity label"):

        class Count(UseCase[int]):
            """Count."""

            name = "count"
            kind = "read"
            permission = Permission.of(*STAFF)

            def perform(self, uow: Any) -> int:
                return 1

    class Counted(UseCase[int]):
        """Count."""

        name = "counted"
        kind = "read"
        permission = Permission.of(*STAFF)

        def perform(self, uow: Any) -> Annotated[int, Fact]:
            return 1

    assert Counted.labels() == Leaf(Fact)
