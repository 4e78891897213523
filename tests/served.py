"""A server in a process of its own, reached over a real socket: for tests and benchmarks."""

from __future__ import annotations

import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def serving(argv: list[str], env: dict[str, str], *, timeout: float = 60) -> Iterator[str]:
    """Run `argv --port N` until /health answers; yield its base URL; stop it afterwards."""
    with served_process(argv, env, timeout=timeout) as (base, _):
        yield base


@contextmanager
def served_process(
    argv: list[str], env: dict[str, str], *, timeout: float = 60, errors: Path | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """As `serving`, and the server's process too (its pid, for a benchmark to watch).

    With `errors`, its stderr (the log) goes to that file, apart from its stdout; the file
    is appended to, so it can be read while the server writes."""
    port = free_port()
    # A file, not a pipe: nobody reads a pipe while the server runs, and a server that
    # logs more than a pipe holds would block on its next write.
    with tempfile.TemporaryFile(mode="w+") as log, ExitStack() as stack:
        stderr = stack.enter_context(errors.open("a")) if errors else subprocess.STDOUT
        process = subprocess.Popen(
            [*argv, "--port", str(port)], env=env, stdout=log, stderr=stderr, text=True
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    process.kill()
                    process.wait(timeout=30)
                    log.seek(0)
                    said = log.read() + (errors.read_text() if errors else "")
                    raise AssertionError(f"{' '.join(argv)} did not come up:\n{said}")
                time.sleep(0.05)
            yield base, process
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:  # a request still under way holds uvicorn's stop
                process.kill()
                process.wait(timeout=30)
