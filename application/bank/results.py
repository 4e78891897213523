"""What the bank use cases return: plain values, never aggregates."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, Field, WithJsonSchema

from domain.account import Account

# Euros reach programs as a Decimal (a number on the sheet a program author reads) and
# JSON readers as exact text (pydantic's serialization of Decimal).
Euros = Annotated[Decimal, WithJsonSchema({"type": "number"}, mode="validation")]


class AccountView(BaseModel):
    """An account and its balance."""

    account: str = Field(description="The account id.")
    owner: str = Field(description="Who owns the account.")
    balance: Euros = Field(description="The balance, in euros with two decimals.")
    currency: str = Field(description="Always EUR.")
    status: Literal["open", "closed"] = Field(description="Whether the account is open.")

    @classmethod
    def of(cls, account: Account) -> AccountView:
        return cls(
            account=account.account,
            owner=account.owner,
            balance=account.balance,
            currency=account.currency,
            status="closed" if account.closed else "open",
        )


class TransferReceipt(BaseModel):
    """The record of a transfer, as the payer sees it."""

    payer: str = Field(description="The account that paid.")
    payee: str = Field(description="The account that received.")
    amount: Euros = Field(description="The amount moved.")
    memo: str = Field(description="The memo given with the transfer.")
    payer_balance: Euros = Field(description="The payer's balance after the transfer.")


class StatementEntry(BaseModel):
    """One movement on an account."""

    version: int = Field(description="The position of the movement in the account's history.")
    kind: Literal["opened", "deposit", "withdrawal", "transfer_out", "transfer_in", "closed"] = (
        Field(description="What happened.")
    )
    amount: Euros = Field(description="Signed change of the balance (negative when money left).")
    balance: Euros = Field(description="The balance after the movement.")
    counterparty: str | None = Field(description="The other account of a transfer.")
    memo: str = Field(description="The memo given with the movement.")
    timestamp: str = Field(description="When it happened (ISO 8601, UTC).")
