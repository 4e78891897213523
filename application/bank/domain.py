"""The bank as a domain Sluice serves: registered as `bank` in pyproject.toml."""

from __future__ import annotations

from application.bank import BANK_USE_CASES, DIRECTORY_HEADER
from application.bank.agent_histories import BANK_HISTORIES
from application.bank.agent_words import BANK_WORDS
from application.bank.api_examples import BANK_EXAMPLES
from application.bank.audited import ACCOUNTS
from application.bank.books import BankBooks
from application.bank.demo import BANK_DEMO
from application.bank.money_moves import money_moves
from application.bank.owners import account_exists
from application.bank.read_models import BANK_READ_MODELS
from application.bank.read_routes import BANK_READ_ROUTES
from application.bank.telling import BANK_TELLING
from application.domains import Domain, OwnedWords

BANK = Domain(
    name="bank",
    title="The bank: accounts, deposits, withdrawals and transfers",
    use_cases=BANK_USE_CASES,
    directory_header=DIRECTORY_HEADER,
    demo=BANK_DEMO,
    agent_words=BANK_WORDS,
    agent_histories=BANK_HISTORIES,
    telling=BANK_TELLING,
    api_examples=BANK_EXAMPLES,
    money_moves=money_moves,
    read_routes=BANK_READ_ROUTES,
    read_models=BANK_READ_MODELS,
    # A customer owns accounts that exist.
    ownable=account_exists,
    owned_words=OwnedWords(unowned="no account {id}"),
    audited=(ACCOUNTS,),
    books=BankBooks,
)
