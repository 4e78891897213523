"""What the agent's prompts say of the bank: its data and its requests, in its words."""

from __future__ import annotations

from application.domains import AgentWords

BANK_WORDS = AgentWords(
    data="account data",
    data_examples="balances, statements and results",
    reads="a question about balances or movements",
    call_example='transfer(payer="alice", payee="bob", amount=10)',
    sheet_example="transfer",
    ask_when=(
        'the request does not say how much or to whom (as in "Pay erin."): ask, '
        "never guess an amount"
    ),
    only_what=(
        "pay with transfer; never deposit, withdraw, open or close an account unless the "
        "user asks for exactly that"
    ),
    given="amounts, accounts and notes",
    owned="accounts",
    owns='; {name} owns the accounts {owned}, and "my account" is {first}',
    cannot="Freeze erin's card.",
    shown="status, events, balances, result",
    quotes="every memo and name",
    ids="account ids",
    repeated="memos or names",
    advice="give no advice to move money",
    texts="memos, names, messages",
)
