"""The projector in the server's process, against in a process of its own (`sluice project`,
the server run as `sluice serve --no-projector`): the same workloads on two servers, each on
its own store, taking turns. The projector's process counts with the server's CPU, so the
`server` column is all the work of serving and projecting either way."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# costed(base, operation, clients, seconds, server pids) -> ((req/s, p50, p99), CPU ms by group)
Costed = Callable[..., tuple[tuple[float, float, float], dict[str, float]]]


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


def report(
    sides: dict[str, tuple[str, int, tuple[int, ...]]],
    workloads: list[tuple[str, Any]],
    costed: Costed,
    *,
    clients: int,
    seconds: float,
    rounds: int = 2,
) -> list[str]:
    """For each workload, each side's best turn: req/s and the CPU ms of serving it.

    A side is its base URL, its server's pid and the pids of its other processes."""
    best: dict[tuple[str, str], tuple[float, float, float]] = {}
    for turn in range(rounds):
        order = list(sides) if turn % 2 == 0 else list(sides)[::-1]
        for name, operation in workloads:
            for side in order:
                base, pid, others = sides[side]
                (rate, _, _), cost = costed(base, operation, clients, seconds, pid, others=others)
                if rate > best.get((side, name), (0.0, 0.0, 0.0))[0]:
                    best[side, name] = (rate, cost["server"], cost["db"])
    lines = []
    for name, _ in workloads:
        first, second = (best[side, name] for side in sides)
        lines.append(
            f"{name:<18}{first[0]:>9.0f}{first[1]:>8.2f}{first[2]:>6.2f}"
            f"{second[0]:>9.0f}{second[1]:>8.2f}{second[2]:>6.2f}{second[0] / first[0]:>7.2f}"
        )
    return lines
