"""One real `sluice serve` process, reached over a socket by a real HTTP client."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

SLUICE = str(Path(sys.executable).parent / "sluice")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "SLUICE_DATABASE_URL": f"sqlite://{tmp_path / 'served.db'}"}
    process = subprocess.Popen(
        [SLUICE, "serve", "--demo", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                output = process.stdout.read() if process.stdout else ""
                raise AssertionError(f"sluice serve did not come up:\n{output}")
            time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_served_gateway_proposes_confirms_and_reports(served: str) -> None:
    alice = {"Authorization": "Bearer sk-demo-alice"}
    with httpx.Client(base_url=served, headers=alice, timeout=10) as client:
        proposal = client.post(
            "/v1/programs",
            json={"language": "python", "source": 'transfer(payer="alice", payee="bob", amount=4)'},
        ).json()
        outcome = client.post(
            f"/v1/programs/{proposal['id']}/confirm",
            json={"preview_hash": proposal["preview_hash"]},
        ).json()
        account = client.get("/v1/accounts/alice", params={"consistent": "true"}).json()

    assert outcome["status"] == "committed"
    assert account["balance"] == "96.00"
