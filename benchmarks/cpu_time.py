"""CPU time of processes, from Linux's /proc: a benchmark's own, a served gateway's (with its
sandbox workers) and the database server's, to say what one operation costs the machine."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PROC = Path("/proc")


def available() -> bool:
    return (PROC / "self" / "stat").exists()


def cpu_seconds(pids: Iterable[int]) -> float:
    """User and system CPU time of these processes so far (those gone count nothing)."""
    total = 0.0
    for pid in pids:
        try:
            fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += (int(fields[11]) + int(fields[12])) / TICK
    return total


def process_tree(pid: int) -> set[int]:
    """The process and its children, recursively (a gateway and its sandbox workers)."""
    found = {pid}
    for children in (PROC / str(pid) / "task").glob("*/children"):
        try:
            for child in children.read_text().split():
                found |= process_tree(int(child))
        except FileNotFoundError:
            continue
    return found


def postgres_pids() -> set[int]:
    """Every process of the local PostgreSQL server (its backends included)."""
    found = set()
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == "postgres":
                    found.add(int(entry.name))
            except OSError:
                continue
    return found


Pids = Callable[[], Iterable[int]]


def spent(groups: dict[str, Pids], action: Callable[[], object]) -> dict[str, float]:
    """CPU seconds each group of processes spent while `action` ran (each group's processes
    are listed before and after, so workers started meanwhile count)."""
    before = {name: cpu_seconds(pids()) for name, pids in groups.items()}
    action()
    return {name: cpu_seconds(pids()) - before[name] for name, pids in groups.items()}
