"""Gateway processes for the bank test: each serves on a port of its own and reaches the
database through a TCP proxy of its own, so that one link can be cut and one process
killed without touching the others."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.postgres import support
from tests.served import free_port
from tests.tcp_proxy import Proxy

SLUICE = str(Path(sys.executable).parent / "sluice")
# The test measures the gateway under faults, not its rate limits.
UNCAPPED = {
    "SLUICE_CAP_REQUESTS_PER_MINUTE": "100000000",
    "SLUICE_CAP_PROGRAMS_PER_MINUTE": "100000000",
    # The clients are the teller's, many at once.
    "SLUICE_CAP_PROGRAMS_AT_ONCE": "100000000",
}


class Node:
    """One `sluice serve` process; kill -9 it, restart it on the same port."""

    def __init__(self, index: int, schema: str, log: Path) -> None:
        self.index = index
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        settings = support.base_settings()
        self.proxy = Proxy((settings.host, settings.port))
        url = (
            f"postgresql://{settings.user}@127.0.0.1:{self.proxy.port}/{settings.dbname}"
            f"?schema={schema}"
        )
        self.env = {**os.environ, **UNCAPPED, "SLUICE_DATABASE_URL": url}
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60) -> float:
        """Start and wait until /health answers 200; the seconds it took."""
        started = time.monotonic()
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [SLUICE, "serve", "--port", str(self.port)],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        while time.monotonic() - started < timeout:
            if self.process.poll() is not None:
                raise AssertionError(f"gateway {self.index} exited; see {self.log}")
            try:
                if httpx.get(f"{self.base}/health", timeout=1).status_code == 200:
                    return time.monotonic() - started
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"gateway {self.index} did not come up in {timeout} s")

    def kill(self) -> None:
        """kill -9: no shutdown, whatever it was doing."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proxy.close()

    def terminate_backends(self) -> int:
        """pg_terminate_backend on every database session of this gateway; how many."""
        ports = sorted(self.proxy.upstream_ports())
        if not ports:
            return 0
        with support.admin_connection() as admin:
            rows = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE client_port = ANY(%s) AND pid <> pg_backend_pid()",
                (ports,),
            ).fetchall()
        return sum(1 for (done,) in rows if done)
