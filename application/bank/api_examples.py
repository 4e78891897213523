"""The bank's examples in the OpenAPI document (application/api_examples.py): each is what
the served bank demo takes or answers (tests/http/test_openapi.py compares)."""

from __future__ import annotations

from application.api_examples import ApiExamples

BANK_EXAMPLES = ApiExamples(
    program='transfer(payer="alice", payee="bob", amount=10, memo="lunch")',
    use_case="transfer",
    plan='{"steps": [{"tool": "get_balance", "args": {"account": "alice"}}]}',
    result={
        "payer": "alice",
        "payee": "bob",
        "amount": "10.00",
        "memo": "lunch",
        "memo_by": "alice",
        "payer_balance": "90.00",
    },
    event={
        "account": "alice",
        "type": "TransferDebited",
        "data": {"amount": "10.00", "counterparty": "bob", "memo": "lunch"},
    },
    not_yours="get_balance: account bob is not an account of principal alice",
    refused="transfer: no account dan",
    refusal="account-not-found",
    directory="- transfer [write] Send money from one account to another.",
)
