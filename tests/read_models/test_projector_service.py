"""Several processes on one database: gateways that leave projection to `sluice project`,
and the projector as a service of its own."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from tests.served import serving
from tests.stores import empty_store

SLUICE = str(Path(sys.executable).parent / "sluice")
TELLER = {"Authorization": "Bearer sk-demo-teller"}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, str]]:
    with empty_store(request.param, tmp_path) as url:
        yield {**os.environ, "SLUICE_DATABASE_URL": url}


def bob(base: str, *, consistent: bool = False) -> str:
    answer = httpx.get(
        f"{base}/v1/accounts/bob",
        params={"consistent": str(consistent).lower()},
        headers=TELLER,
        timeout=30,
    )
    balance: str = answer.json()["balance"]
    return balance


def deposit(base: str) -> None:
    answer = httpx.post(
        f"{base}/v1/use-cases/deposit",
        json={"account": "bob", "amount": "5.00"},
        headers=TELLER,
        timeout=30,
    )
    assert answer.status_code == 200, answer.text


def eventually(check: object, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if callable(check) and check():
            return True
        time.sleep(0.1)
    return False


def test_two_gateways_without_projectors_and_one_projector_service(
    env: dict[str, str],
) -> None:
    with ExitStack() as stack:
        first = stack.enter_context(serving([SLUICE, "serve", "--demo", "--no-projector"], env))
        second = stack.enter_context(serving([SLUICE, "serve", "--no-projector"], env))
        bob(first, consistent=True)  # the views exist and are current

        # No projector runs: a plain read answers from the views as they are; a consistent
        # one brings them up to date first.
        deposit(first)
        assert bob(second) == "0.00"
        assert bob(second, consistent=True) == "5.00"
        deposit(second)
        assert bob(first) == "5.00"

        # One projector service keeps them current for every gateway.
        projector = subprocess.Popen(
            [SLUICE, "project", "--log-format", "json"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert eventually(lambda: bob(first) == bob(second) == "10.00")
            deposit(second)
            assert eventually(lambda: bob(first) == "15.00")
        finally:
            projector.send_signal(signal.SIGTERM)
            said, errors = projector.communicate(timeout=30)
        assert projector.returncode == 0, errors
        assert said.startswith("Projecting")
        assert all(json.loads(line)["logger"] for line in errors.splitlines())  # log lines only
