"""The refusals of the bank domain: each message names the thing and the reason."""

from __future__ import annotations


class DomainError(Exception):
    """A business rule refused the operation; nothing changed."""


class AccountNotFoundError(DomainError):
    def __init__(self, account: str) -> None:
        super().__init__(f"no account {account}")
        self.account = account


class AccountExistsError(DomainError):
    def __init__(self, account: str) -> None:
        super().__init__(f"account {account} already exists")
        self.account = account


class AccountClosedError(DomainError):
    def __init__(self, account: str) -> None:
        super().__init__(f"account {account} is closed")
        self.account = account


class InsufficientFundsError(DomainError):
    def __init__(self, account: str, balance: str) -> None:
        super().__init__(f"{account} has only {balance}")
        self.account = account


class AccountNotEmptyError(DomainError):
    def __init__(self, account: str, balance: str) -> None:
        super().__init__(f"account {account} still holds {balance}; only an empty account closes")
        self.account = account


class BalanceLimitError(DomainError):
    def __init__(self, account: str, balance: str, maximum: str) -> None:
        super().__init__(f"{account} would hold {balance}, over the maximum balance of {maximum}")
        self.account = account


class InvalidAmountError(DomainError):
    """An amount that is not a positive number of cents."""


class SameAccountError(DomainError):
    def __init__(self, account: str) -> None:
        super().__init__(f"payer and payee are both {account}")
        self.account = account


class RefundLimitError(DomainError):
    def __init__(self, account: str, payee: str, room: str) -> None:
        super().__init__(
            f"a refund from {account} to {payee} gives back at most {room}: "
            f"what {payee} sent {account} and was not refunded yet"
        )
        self.account = account
