"""A served gateway under load while its Postgres backends are terminated again and again:
every failure is a 503 with Retry-After, no request stalls, and it recovers at once."""

from __future__ import annotations

import os
import random
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.http.load import TELLER, Answer, Load
from tests.postgres import support
from tests.served import serving
from tests.stores import postgres_url

pytestmark = pytest.mark.postgres

SLUICE = str(Path(sys.executable).parent / "sluice")
KILLING_SECONDS = 8.0
# A request never waits on a terminated backend: a lost connection fails the call at once
# and the next one opens a fresh connection (a few ms here). What remains is queueing for
# the insert lock behind the other clients and a fresh program preview, well under a second
# each on this machine even when loaded; 5 s leaves room and still catches the 10-22 s stalls.
STALL_BOUND = 5.0
RECOVERY_BOUND = 1.0


@pytest.fixture
def gateway(schema: str) -> Iterator[tuple[str, str]]:
    """A served gateway whose backends carry an application_name of their own."""
    name = f"sluice-test-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "SLUICE_DATABASE_URL": postgres_url(schema),
        "POSTGRES_APPLICATION_NAME": name,
        "SLUICE_CAP_REQUESTS_PER_MINUTE": "1000000",
        "SLUICE_CAP_PROGRAMS_PER_MINUTE": "1000000",
        # The load's programs are all alice's, several at once.
        "SLUICE_CAP_PROGRAMS_AT_ONCE": "1000000",
    }
    with serving([SLUICE, "serve", "--demo"], env) as base:
        yield base, name


def terminate_backends(application_name: str) -> int:
    with support.admin_connection() as admin:
        row = admin.execute(
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE application_name = %s",
            (application_name,),
        ).fetchone()
    return int(row[0]) if row else 0


def recover(base: str) -> str | float:
    """Seconds until a read and a write both answer 200 (each retried at once on a 503),
    or what went wrong instead."""
    started = time.monotonic()
    with httpx.Client(base_url=base, headers=TELLER, timeout=10) as client:
        for method, path, body in (
            ("GET", "/v1/accounts/carla", None),
            ("POST", "/v1/use-cases/deposit", {"account": "carla", "amount": 1}),
        ):
            while True:
                try:
                    response = client.request(method, path, json=body)
                except httpx.TransportError as error:
                    return f"{method} {path}: {error!r} after {time.monotonic() - started:.1f} s"
                if response.status_code == 200:
                    break
                if response.status_code != 503 or time.monotonic() - started > 10:
                    return f"{method} {path}: {response.status_code} {response.text[:200]}"
    return time.monotonic() - started


def test_terminated_backends_under_load_give_503s_and_a_recovery_within_a_second(
    gateway: tuple[str, str],
) -> None:
    base, application_name = gateway
    with httpx.Client(base_url=base, headers=TELLER, timeout=30) as client:
        for account in ("alice", "bob"):
            funded = client.post(
                "/v1/use-cases/deposit", json={"account": account, "amount": 10000}
            )
            assert funded.status_code == 200, funded.text

    load = Load(base)
    load.start()
    kills = 0
    chance = random.Random(13)
    try:
        deadline = time.monotonic() + KILLING_SECONDS
        while time.monotonic() < deadline:
            kills += terminate_backends(application_name)
            time.sleep(chance.uniform(0.05, 0.3))
    finally:
        load.stop()
    # The last termination ends every session the gateway holds, idle ones included; what
    # is timed is the gateway's own recovery, not queueing behind the load on this machine.
    kills += terminate_backends(application_name)
    recovery = recover(base)

    answers = load.answers
    statuses = Counter(a.status for a in answers)
    longest = max((a.seconds for a in answers), default=0.0)
    report = (
        f"{kills} backends terminated; answers by status {dict(sorted(statuses.items()))}; "
        f"longest {longest:.2f} s"
    )
    print(report, f"; recovery: {recovery}")
    failures = [a for a in answers if (a.status >= 500 and a.status != 503) or a.status == 0]
    assert not failures, f"{report}; not 503: {summary(failures)}"
    without_retry_after = [a for a in answers if a.status == 503 and not a.retry_after]
    assert not without_retry_after, (
        f"{report}; 503 without Retry-After: {summary(without_retry_after)}"
    )
    stalled = [a for a in answers if a.seconds > STALL_BOUND]
    assert not stalled, f"{report}; stalled over {STALL_BOUND} s: {summary(stalled)}"
    assert kills > 10, report
    assert statuses[200] + statuses[201] > 50, report
    assert isinstance(recovery, float), f"{report}; no recovery: {recovery}"
    assert recovery < RECOVERY_BOUND, f"{report}; recovered after {recovery:.2f} s"


def summary(answers: list[Answer]) -> str:
    kinds = Counter((a.what, a.status, a.detail[:120]) for a in answers)
    longest = max(a.seconds for a in answers)
    lines = [
        f"{n} x {what} {status}: {detail}" for (what, status, detail), n in kinds.most_common(8)
    ]
    return f"{len(answers)} answers, longest {longest:.1f} s\n" + "\n".join(lines)
