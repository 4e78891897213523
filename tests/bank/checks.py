"""What the bank test checks once the faults are healed: the books, from the log itself."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal

from eventsourcing.utils import get_topic

from application.ledger import Ledger
from application.store_config import eventsourcing_env
from domain.account import Account
from tests.bank.nodes import SLUICE
from tests.bank.workload import NOTHING_WRITTEN, Op

TOPICS = [get_topic(Account.TransferDebited), get_topic(Account.TransferCredited)]


@dataclass
class Books:
    problems: list[str] = field(default_factory=list)

    def expect(self, ok: bool, problem: str) -> None:
        if not ok:
            self.problems.append(problem)


def check_books(
    url: str, env: dict[str, str], ops: list[Op], accounts: list[str], opening: Decimal
) -> Books:
    books = Books()
    debits, credits = _movements(url)
    with Ledger(env=eventsourcing_env(url)) as ledger:
        balances = {name: ledger.load_keyed(Account, name).balance for name in accounts}
    # Money is conserved: transfers only move it between the bank's accounts.
    total = sum(balances.values(), Decimal(0))
    books.expect(
        total == opening * len(accounts),
        f"money: {total} in accounts, {opening * len(accounts)} put in",
    )
    books.expect(min(balances.values()) >= 0, f"a negative balance: {balances}")
    for op in ops:
        d, c = debits[op.memo], credits[op.memo]
        books.expect(d == c, f"{op.memo} is half applied: {d} debit(s), {c} credit(s)")
        if op.acknowledged:
            books.expect(d == 1, f"{op.memo} was acknowledged and is in the log {d} time(s)")
        elif op.status in NOTHING_WRITTEN:
            books.expect(d == 0, f"{op.memo} answered {op.status} yet is in the log {d} time(s)")
        else:
            books.expect(d <= 1, f"{op.memo} (no answer) is in the log {d} time(s)")
    known = {op.memo for op in ops}
    strays = [memo for memo in debits if memo not in known]
    books.expect(not strays, f"transfers no client asked for: {strays[:5]}")
    _same_as_a_replay(env, books)
    _audit_verifies(env, books)
    return books


def _movements(url: str) -> tuple[Counter[str], Counter[str]]:
    debits: Counter[str] = Counter()
    credits: Counter[str] = Counter()
    with Ledger(env=eventsourcing_env(url)) as ledger:
        start = 1
        while page := ledger.recorder.select_notifications(start, 1000, topics=TOPICS):
            for notification in page:
                event = ledger.mapper.to_domain_event(notification)
                assert isinstance(event, Account.TransferDebited | Account.TransferCredited)
                moved = debits if isinstance(event, Account.TransferDebited) else credits
                moved[event.memo] += 1
            start = page[-1].id + 1
    return debits, credits


def _same_as_a_replay(env: dict[str, str], books: Books) -> None:
    done = subprocess.run(
        [SLUICE, "replay", "--from-scratch", "--json"],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    books.expect(done.returncode == 0, f"sluice replay: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    if done.returncode == 0:
        compared = json.loads(done.stdout)
        books.expect(all(c["equal"] for c in compared), f"read models differ: {compared}")


def _audit_verifies(env: dict[str, str], books: Books) -> None:
    done = subprocess.run(
        [SLUICE, "audit", "verify"],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    books.expect(done.returncode == 0, f"sluice audit verify: {done.stdout[-3000:]}")
