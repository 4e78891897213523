"""The rows of the read models, and the changes a batch of events makes to them."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass
class BalanceChange:
    """Added to the row of an account (created if absent): a delta, and what else is known.

    Rows are keyed by aggregate id: only an account's first event carries its name."""

    aggregate_id: str
    delta: Decimal
    version: int
    account: str | None = None
    owner: str | None = None
    status: str | None = None


@dataclass(frozen=True)
class BalanceRow:
    account: str
    owner: str
    balance: Decimal
    status: str
    version: int


@dataclass(frozen=True)
class StatementRow:
    aggregate_id: str
    position: int
    version: int
    kind: str
    amount: Decimal
    balance: Decimal
    counterparty: str | None
    memo: str
    time: str
    run_id: str | None = None
    memo_by: str | None = None  # the memo's writer when not its side's default


@dataclass(frozen=True)
class RunLink:
    """A committed event of an account, and the run that committed it."""

    aggregate_id: str
    version: int
    run_id: str


@dataclass
class RunChange:
    """Merged into the row of `run_id`; None leaves a column as it is."""

    run_id: str
    principal: str | None = None
    kind: str | None = None
    language: str | None = None
    status: str | None = None
    calls: int | None = None
    previewed: int | None = None
    committed: int | None = None
    confirmed_by: str | None = None
    error: str | None = None
    created_at: str | None = None
    decided_at: str | None = None
    position: int | None = None


@dataclass(frozen=True)
class RunRow:
    run_id: str
    principal: str
    kind: str
    language: str
    status: str
    calls: int
    previewed: int
    committed: int
    confirmed_by: str | None
    error: str | None
    created_at: str
    decided_at: str | None
    position: int


@dataclass(frozen=True)
class DocumentChange:
    """A record of a domain's declared read model (`application.read_models.documents`) set
    to `body` (a JSON object's text), or removed (None), by its key in that read model;
    `owner` is the owned id it belongs to (None: every principal's to read)."""

    projection: str
    key: str
    owner: str | None
    body: str | None


@dataclass(frozen=True)
class DocumentRow:
    projection: str
    key: str
    owner: str | None
    body: str


@dataclass(frozen=True)
class DeadLetter:
    """An event a projection could not apply: kept aside, so the projection goes on."""

    projection: str
    position: int
    error: str
    recorded_at: str
