"""The primary dies under load and its synchronous standby is promoted: the running gateway
and projector find the new primary by themselves, nothing answered 2xx is lost, and a
request retried with its Idempotency-Key answers truthfully (committed once, never twice)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from application.ledger import Ledger
from application.store_config import eventsourcing_env
from domain.account import Account
from tests.ha.pair import Pair
from tests.served import served_process

pytestmark = pytest.mark.ha

SLUICE = str(Path(sys.executable).parent / "sluice")
# Each client pays the next one; all three are funded first, so few transfers are refused.
CLIENTS = (("alice", "bob"), ("bob", "carla"), ("carla", "alice"))
FUNDS = Decimal("100.00")  # each, once the teller has funded bob and carla
ANSWERED_BEFORE = 15  # transfers answered 2xx per client before the primary is killed
ANSWERED_AFTER = 10  # and after the promotion
# The bound: the same gateway process serves again within 10 s of the promotion.
SERVES_AGAIN_SECONDS = 10.0
# No answer waits past the store's bounded waits (3 s lock, 5 s statement, 5 s connect,
# each at most once or twice on one request); a hang would run to the client's timeout.
LONGEST_ANSWER_SECONDS = 20.0
DEADLINE = 120.0  # for each stage of the load, on a loaded machine


@dataclass(frozen=True)
class Answer:
    key: str
    status: int  # 0: no answer at all (the connection to the gateway failed)
    started: float
    finished: float
    retry_after: str | None
    body: str


@dataclass
class Client:
    """Sends direct transfers, each with an Idempotency-Key of its own (also its memo)."""

    base: str
    payer: str
    payee: str
    answers: list[Answer] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=60) as client:
            sent = 0
            while not self.stop.is_set():
                sent += 1
                self.answers.append(self.send(client, f"{self.payer}-{sent:05d}"))

    def send(self, client: httpx.Client, key: str) -> Answer:
        started = time.monotonic()
        headers = {"Authorization": f"Bearer sk-demo-{self.payer}", "Idempotency-Key": key}
        body = {"payer": self.payer, "payee": self.payee, "amount": "0.01", "memo": key}
        try:
            response = client.post("/v1/use-cases/transfer", json=body, headers=headers)
        except httpx.TransportError as error:
            return Answer(key, 0, started, time.monotonic(), None, repr(error))
        return Answer(
            key,
            response.status_code,
            started,
            time.monotonic(),
            response.headers.get("retry-after"),
            response.text[:300],
        )

    def answered_since(self, moment: float) -> int:
        return sum(1 for a in list(self.answers) if a.status == 200 and a.started >= moment)


@contextmanager
def projector(env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        [SLUICE, "project"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def wait_for(condition: str, check: Callable[[], bool], seconds: float = DEADLINE) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"still not {condition} after {seconds} s"
        time.sleep(0.05)


def test_a_failover_under_load_loses_nothing_answered_and_serves_again(pair: Pair) -> None:
    env = {
        **os.environ,
        "SLUICE_DATABASE_URL": pair.url,
        "SLUICE_READ_DATABASE_URL": pair.standby.url,
        "SLUICE_CAP_REQUESTS_PER_MINUTE": "1000000",
    }
    seeded = subprocess.run(
        [SLUICE, "demo"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert seeded.returncode == 0, seeded.stderr

    with (
        projector(env) as projecting,
        served_process([SLUICE, "serve", "--no-projector"], env) as (base, served),
    ):
        clients, promoted = failover_under_load(pair, base)
        answers = [a for c in clients for a in c.answers]
        report = check_answers(answers, promoted)
        assert served.poll() is None and projecting.poll() is None  # the same processes
        final = retry_unanswered(base, clients)
        # The projector found the new primary by itself and caught up with the log.
        wait_for("caught up", lambda: caught_up(base), 30)

    # On the new primary: each transfer answered 2xx is there once; none is there twice.
    with Ledger(env=eventsourcing_env(pair.standby.url)) as ledger:
        debits = Counter(
            event.memo
            for name in ("alice", "bob", "carla")
            for event in ledger.events_of(Account.id_for(name))
            if isinstance(event, Account.TransferDebited)
        )
        balances = {
            name: ledger.load_keyed(Account, name).balance for name in ("alice", "bob", "carla")
        }
    committed = {key for key, a in final.items() if a.status == 200}
    assert {key for key in committed if debits[key] != 1} == set(), report
    assert {key for key, n in debits.items() if n > 1} == set()
    assert set(debits) <= set(final)  # nothing committed that was not asked
    assert not (set(final) - committed) & set(debits), "a refused transfer was committed"
    # The books balance: money only moved between the three.
    assert sum(balances.values()) == 3 * FUNDS, balances

    # The read models equal a replay of the log (and set nothing aside).
    replayed = subprocess.run(
        [SLUICE, "replay", "--json"],
        env={**os.environ, "SLUICE_DATABASE_URL": pair.url},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert all(result["equal"] for result in json.loads(replayed.stdout))


def failover_under_load(pair: Pair, base: str) -> tuple[list[Client], float]:
    """The clients' load, the primary killed mid-way and the standby promoted by hand; the
    clients (stopped once each had answers after the promotion) and its moment."""
    for account in ("bob", "carla"):
        funded = httpx.post(
            f"{base}/v1/use-cases/deposit",
            json={"account": account, "amount": str(FUNDS)},
            headers={"Authorization": "Bearer sk-demo-teller"},
            timeout=30,
        )
        assert funded.status_code == 200, funded.text
    clients = [Client(base, payer, payee) for payer, payee in CLIENTS]
    threads = [threading.Thread(target=c.run, daemon=True) for c in clients]
    for thread in threads:
        thread.start()
    try:
        wait_for("loaded", lambda: all(c.answered_since(0) >= ANSWERED_BEFORE for c in clients))
        pair.kill_primary()
        time.sleep(0.5)  # the gateway meets the outage: 503s, not a hang
        pair.promote()
        promoted = time.monotonic()
        wait_for(
            "serving again",
            lambda: all(c.answered_since(promoted) >= ANSWERED_AFTER for c in clients),
        )
    finally:
        for client in clients:
            client.stop.set()
        for thread in threads:
            thread.join(timeout=90)
    return clients, promoted


def check_answers(answers: list[Answer], promoted: float) -> str:
    statuses = Counter(a.status for a in answers)
    report = f"answers by status {dict(sorted(statuses.items()))}"
    # Never a 500, never a dropped connection: 2xx, a final refusal, or 503 + Retry-After.
    odd = [a for a in answers if a.status == 0 or (a.status >= 500 and a.status != 503)]
    assert not odd, f"{report}; {odd[:5]}"
    assert all(a.retry_after for a in answers if a.status == 503), report
    assert statuses[503] > 0, f"{report}: the outage was never met"
    longest = max(answers, key=lambda a: a.finished - a.started)
    assert longest.finished - longest.started < LONGEST_ANSWER_SECONDS, longest
    # The same gateway process serves again soon after the promotion.
    first = min(a.finished for a in answers if a.status == 200 and a.started >= promoted)
    assert first - promoted < SERVES_AGAIN_SECONDS, f"first 2xx {first - promoted:.1f} s"
    print(f"{report}; served again {first - promoted:.2f} s after the promotion")
    return report


def retry_unanswered(base: str, clients: list[Client]) -> dict[str, Answer]:
    """Each transfer's final answer: those answered 503 retried with their keys."""
    final = {a.key: a for c in clients for a in c.answers}
    with httpx.Client(base_url=base, timeout=60) as retrying:
        for client in clients:
            for answer in client.answers:
                while final[answer.key].status == 503:
                    final[answer.key] = client.send(retrying, answer.key)
    assert all(a.status == 200 or 400 <= a.status < 500 for a in final.values())
    return final


def caught_up(base: str) -> bool:
    auditor = {"Authorization": "Bearer sk-demo-auditor"}
    health = httpx.get(f"{base}/health", headers=auditor, timeout=30).json()
    return bool(health.get("projection_lag") == 0 and health.get("dead_letters") == 0)
