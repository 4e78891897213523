"""The plain alternative of `make bench-alternative`: what a user would write instead of Sluice.

A small FastAPI service, written the way eventsourcing's and FastAPI's documentation show: an
`Account` aggregate of eventsourcing's declarative syntax, an `Application` with one method a
command or query (the shape of eventsourcing's bank-accounts example), persisted by
`eventsourcing.postgres` (psycopg) as its environment variables say, and FastAPI routes as
plain `def`s calling the application. It does a direct transfer and a balance read, and
nothing else: no authentication, no caps, no audit record, no idempotency, no read models.

Two of the Application's documented options are used, so that loads stay short as the
benchmark adds events (without either, each load replays every event of the account):
snapshots every 50 versions, as Sluice takes them, and, with `AGGREGATE_CACHE_MAXSIZE` set in
the environment, its aggregate cache (fast-forwarded on each load).

    PERSISTENCE_MODULE=eventsourcing.postgres POSTGRES_... \\
        python -m benchmarks.alternative_server --port PORT [--accounts acct0,acct1,...]
"""

from __future__ import annotations

import argparse
from decimal import Decimal
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

import uvicorn
from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.domain import Aggregate, event
from eventsourcing.persistence import IntegrityError
from fastapi import FastAPI, HTTPException
from pydantic import BaseModel

# How many times a transfer that lost a race to another is done again from the store.
RETRIES = 5


class InsufficientFundsError(Exception):
    pass


class Account(Aggregate):
    @event("Opened")
    def __init__(self, name: str, balance: Decimal) -> None:
        self.name = name
        self.balance = balance

    @staticmethod
    def create_id(name: str) -> UUID:
        return uuid5(NAMESPACE_URL, f"/accounts/{name}")

    @event("Debited")
    def debit(self, amount: Decimal) -> None:
        if amount > self.balance:
            raise InsufficientFundsError(self.name)
        self.balance -= amount

    @event("Credited")
    def credit(self, amount: Decimal) -> None:
        self.balance += amount


class Bank(Application[UUID]):
    snapshotting_intervals = {Account: 50}

    def open_account(self, name: str, balance: Decimal) -> None:
        self.save(Account(name, balance))

    def get_account(self, name: str) -> Account:
        account: Account = self.repository.get(Account.create_id(name))
        return account

    def get_balance(self, name: str) -> Decimal:
        return self.get_account(name).balance

    def transfer(self, payer: str, payee: str, amount: Decimal) -> None:
        for _ in range(RETRIES):
            debited = self.get_account(payer)
            credited = self.get_account(payee)
            debited.debit(amount)
            credited.credit(amount)
            try:
                self.save(debited, credited)
            except IntegrityError:
                continue  # another request saved one of them first: load them again
            return
        raise IntegrityError(f"{payer} or {payee} kept changing")


class Transfer(BaseModel):
    payer: str
    payee: str
    amount: Decimal


def create_app(bank: Bank) -> FastAPI:
    app = FastAPI()

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/accounts/{name}")
    def balance(name: str) -> dict[str, Any]:
        try:
            return {"account": name, "balance": str(bank.get_balance(name))}
        except AggregateNotFoundError:
            raise HTTPException(404, f"no account {name}") from None

    @app.post("/transfer")
    def transfer(body: Transfer) -> dict[str, Any]:
        try:
            bank.transfer(body.payer, body.payee, body.amount)
        except AggregateNotFoundError:
            raise HTTPException(404, "no such account") from None
        except InsufficientFundsError as error:
            raise HTTPException(422, f"insufficient funds in {error}") from None
        except IntegrityError as error:
            raise HTTPException(409, str(error)) from None
        return {"payer": body.payer, "payee": body.payee, "amount": str(body.amount)}

    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--accounts", default="", help="names to open with 9000.00 each")
    args = parser.parse_args()
    bank = Bank()  # configured by the environment (PERSISTENCE_MODULE, POSTGRES_*)
    for name in filter(None, args.accounts.split(",")):
        try:
            bank.get_account(name)
        except AggregateNotFoundError:
            bank.open_account(name, Decimal("9000.00"))
    uvicorn.run(
        create_app(bank), host="127.0.0.1", port=args.port, log_level="warning", access_log=False
    )


if __name__ == "__main__":
    main()
