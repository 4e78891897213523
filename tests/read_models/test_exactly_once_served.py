"""Read models count every event once, whatever the number of projectors and catch-ups.

Served gateways over real sockets: deposits land while `?consistent=true` reads catch the
views up in request threads, beside each process's own projector thread.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from tests.served import serving
from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")
TELLER = {"Authorization": "Bearer sk-demo-teller"}
DEPOSITS = 120
# The readers ask as fast as they can: no request cap gets in their way.
UNCAPPED = {"SLUICE_CAP_REQUESTS_PER_MINUTE": "1000000"}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with empty_store(request.param, tmp_path) as url:
        yield url


def deposit_and_read(bases: list[str]) -> list[int]:
    """DEPOSITS deposits of 1.00 to alice spread over the gateways, with consistent reads
    of alice's balance on every gateway all along; the statuses of the deposits."""
    done = threading.Event()
    statuses: list[int] = []

    def read(base: str) -> None:
        with httpx.Client(base_url=base, headers=TELLER, timeout=30) as client:
            while not done.is_set():
                client.get("/v1/accounts/alice", params={"consistent": "true"})

    def write(base: str, count: int) -> None:
        with httpx.Client(base_url=base, headers=TELLER, timeout=30) as client:
            for _ in range(count):
                answer = client.post(
                    "/v1/use-cases/deposit", json={"account": "alice", "amount": "1.00"}
                )
                statuses.append(answer.status_code)

    readers = [threading.Thread(target=read, args=(base,)) for base in bases for _ in range(2)]
    share = DEPOSITS // len(bases)
    writers = [threading.Thread(target=write, args=(base, share)) for base in bases]
    for thread in readers + writers:
        thread.start()
    for thread in writers:
        thread.join()
    done.set()
    for thread in readers:
        thread.join()
    return statuses


def alice_everywhere(bases: list[str]) -> list[str]:
    return [
        httpx.get(
            f"{base}/v1/accounts/alice", params={"consistent": "true"}, headers=TELLER, timeout=30
        ).json()["balance"]
        for base in bases
    ]


def audit_verify(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, "audit", "verify"],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("processes", [1, 2])
def test_deposits_with_consistent_reads_are_counted_once(database_url: str, processes: int) -> None:
    env = {**os.environ, "SLUICE_DATABASE_URL": database_url, **UNCAPPED}
    with ExitStack() as stack:
        # One process seeds the demo; the others join the same database.
        bases = [stack.enter_context(serving([SLUICE, "serve", "--demo"], env))]
        bases += [
            stack.enter_context(serving([SLUICE, "serve"], env)) for _ in range(processes - 1)
        ]

        statuses = deposit_and_read(bases)
        balances = alice_everywhere(bases)

    # Two gateways depositing to one account at once may conflict (409, nothing written).
    assert set(statuses) <= {200, 409}
    assert statuses.count(200) > DEPOSITS // 2
    expected = str(Decimal("100.00") + statuses.count(200))
    assert balances == [expected] * processes
    checked = audit_verify(env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
