"""The projector in the server's process, against in a process of its own (`sluice project`,
the server run as `sluice serve --no-projector`): the same workloads on two servers, each on
its own store, taking turns. The projector's process counts with the server's CPU, so the
`server` column is all the work of serving and projecting either way."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def projector_process(database_url: str) -> Iterator[int]:
    """`sluice project` on the store, stopped (SIGTERM) afterwards; its pid."""
    sluice = str(Path(sys.executable).parent / "sluice")
    env = {**os.environ, "SLUICE_DATABASE_URL": database_url}
    process = subprocess.Popen(
        [sluice, "project"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        yield process.pid
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
