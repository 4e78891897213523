"""What the bank use cases return: plain values, never aggregates, each labelled with who
wrote it (`application.labels`): the ledger's facts, or the text of a party."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field, WithJsonSchema

from application.labels import Fact, ResultModel, Text
from application.telling import STAFF  # only staff open accounts and deposit
from domain.account import Account

# Euros reach programs as a Decimal (a number on the sheet a program author reads) and
# JSON readers as exact text (pydantic's serialization of Decimal).
Euros = Annotated[Decimal, WithJsonSchema({"type": "number"}, mode="validation")]
# A balance, as get_balance answers it: a fact of the ledger.
Balance = Annotated[Euros, Fact]


class AccountView(ResultModel):
    """An account and its balance."""

    account: Annotated[str, Fact] = Field(description="The account id.")
    owner: Annotated[str, Text(author=STAFF)] = Field(description="Who owns the account.")
    balance: Annotated[Euros, Fact] = Field(description="The balance, in euros with two decimals.")
    currency: Annotated[str, Fact] = Field(description="Always EUR.")
    status: Annotated[Literal["open", "closed"], Fact] = Field(
        description="Whether the account is open."
    )

    @classmethod
    def of(cls, account: Account) -> AccountView:
        return cls(
            account=account.account,
            owner=account.owner,
            balance=account.balance,
            currency=account.currency,
            status="closed" if account.closed else "open",
        )


class TransferReceipt(ResultModel):
    """The record of a transfer, as the payer sees it."""

    payer: Annotated[str, Fact] = Field(description="The account that paid.")
    payee: Annotated[str, Fact] = Field(description="The account that received.")
    amount: Annotated[Euros, Fact] = Field(description="The amount moved.")
    memo: Annotated[str, Text(by="memo_by")] = Field(
        description="The memo given with the transfer."
    )
    memo_by: Annotated[str | None, Fact] = Field(
        description="Who wrote the memo: an account id, or staff; null when there is none."
    )
    payer_balance: Annotated[Euros, Fact] = Field(
        description="The payer's balance after the transfer."
    )


Kind = Literal["opened", "deposit", "withdrawal", "transfer_out", "transfer_in", "closed"]


class StatementEntry(ResultModel):
    """One movement on an account."""

    version: Annotated[int, Fact] = Field(
        description="The position of the movement in the account's history."
    )
    kind: Annotated[Kind, Fact] = Field(description="What happened.")
    amount: Annotated[Euros, Fact] = Field(
        description="Signed change of the balance (negative when money left)."
    )
    balance: Annotated[Euros, Fact] = Field(description="The balance after the movement.")
    counterparty: Annotated[str | None, Fact] = Field(
        description="The other account of a transfer."
    )
    memo: Annotated[str, Text(by="memo_by")] = Field(
        description="The memo given with the movement."
    )
    memo_by: Annotated[str | None, Fact] = Field(
        description="Who wrote the memo: an account id, or staff; null when there is none."
    )
    timestamp: Annotated[str, Fact] = Field(description="When it happened (ISO 8601, UTC).")


def memo_writer(kind: str, account: str, counterparty: str | None, memo_by: str | None) -> str:
    """Who wrote a movement's memo: the writer its event names, else its side's default (a
    deposit's staff, a received transfer's payer, the account itself otherwise)."""
    if memo_by:
        return memo_by
    if kind == "deposit":
        return STAFF
    if kind == "transfer_in" and counterparty:
        return counterparty
    return account
