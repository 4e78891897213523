"""One CPU for a program's run: the host thread that answers its calls and the worker running it.

A program and its host take turns: the worker runs until a use-case call and waits while
the host answers; the host waits while the worker runs on to the next call. Each turn wakes
the other side. Woken on another CPU, which has gone idle meanwhile (a virtual machine's
CPU halts), a turn cost ~110-140 µs here; on the CPU the sleeper just left, ~35 µs
(BENCHMARKS.md, "the sandbox's round trip"). The two never run at once, so sharing a CPU
costs them nothing. For the length of a run both are bound to one CPU of those the process
may use: the one the host thread is on (moving it to another costs ~300 µs), and both are
given back their own CPUs after it.

Binding only saves time: where the OS has no affinity (not Linux), the process may use one
CPU only, or the OS refuses (the worker just died), the run goes on unbound.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import cast

SUPPORTED = hasattr(os, "sched_setaffinity") and hasattr(os, "sched_getaffinity")


# pydantic-monty's host-side runtime, which relays every turn between the host thread and
# its worker: its threads are bound with them. Found by name, once; a thread named otherwise
# is simply not bound (the run is only slower).
RUNTIME_THREAD_NAME = "tokio-rt-worker"


class CpuPairing:
    def __init__(self, cpus: Iterable[int] | None = None) -> None:
        """`cpus`: those a run may be bound to; by default the ones this process may use."""
        allowed = sorted(cpus if cpus is not None else _allowed())
        # With one CPU every turn is on it already; without affinity there is nothing to do.
        self._cpus = allowed if SUPPORTED and len(allowed) > 1 else None
        self._allowed = frozenset(allowed)
        self._cycle = itertools.cycle(allowed)
        self._lock = threading.Lock()
        # The runtime's threads serve every run, so one run at a time is bound: a run that
        # starts while another is bound runs unbound, on any CPU, as it would without this.
        self._busy = False
        self._runtime: list[int] | None = None

    @property
    def enabled(self) -> bool:
        return self._cpus is not None

    @contextmanager
    def paired(self, worker_pid: int | None) -> Iterator[int | None]:
        """Within: this thread, every thread of process `worker_pid` and the runtime's on
        one CPU, which is yielded; None when they are not bound (nothing is changed)."""
        if self._cpus is None or worker_pid is None:
            yield None
            return
        with self._lock:
            free = not self._busy
            self._busy = True
            cpu = self._choose()
        if not free:
            yield None
            return
        try:
            bound = self._bind(cpu, worker_pid)
            try:
                yield cpu if bound else None
            finally:
                _give_back(bound)
        finally:
            with self._lock:
                self._busy = False

    def _choose(self) -> int:
        # The CPU this thread is on: moving a thread to another costs ~300 µs here.
        here = _current_cpu()
        return here if here is not None and here in self._allowed else next(self._cycle)

    def _bind(self, cpu: int, worker_pid: int) -> dict[int, set[int]]:
        bound: dict[int, set[int]] = {}  # thread id (0: this thread) -> its CPUs before
        try:
            for tid in (0, *_threads(worker_pid)):
                bound[tid] = _set(tid, cpu)
        except OSError:
            _give_back(bound)
            return {}
        for tid in self._runtime_threads():
            try:
                bound[tid] = _set(tid, cpu)
            except OSError:  # ended: look for the runtime's threads again next time
                self._runtime = None
        return bound

    def _runtime_threads(self) -> list[int]:
        if self._runtime is None:
            self._runtime = [tid for tid in _threads(os.getpid()) if _named(tid)]
        return self._runtime


def _current_cpu() -> int | None:
    """The CPU the calling thread runs on (glibc's `sched_getcpu`), None where unknown."""
    if _sched_getcpu is None:
        return None
    cpu = int(_sched_getcpu())
    return cpu if cpu >= 0 else None


def _libc_sched_getcpu() -> Callable[[], int] | None:
    try:
        return cast(Callable[[], int], ctypes.CDLL(None).sched_getcpu)
    except (OSError, AttributeError):  # not glibc, or no such call
        return None


_sched_getcpu = _libc_sched_getcpu() if SUPPORTED else None


def _allowed() -> set[int]:
    return os.sched_getaffinity(0) if SUPPORTED else set()


def _set(tid: int, cpu: int) -> set[int]:
    before = os.sched_getaffinity(tid)
    os.sched_setaffinity(tid, {cpu})
    return before


def _threads(pid: int) -> list[int]:
    """The threads of process `pid` (its own id first); an OSError if it is gone."""
    tids = sorted(int(name) for name in os.listdir(f"/proc/{pid}/task"))
    return sorted(tids, key=lambda tid: tid != pid)


def _named(tid: int) -> bool:
    try:
        with open(f"/proc/self/task/{tid}/comm") as comm:
            return comm.read().strip() == RUNTIME_THREAD_NAME
    except OSError:
        return False


def _give_back(bound: dict[int, set[int]]) -> None:
    for tid, cpus in bound.items():
        try:
            os.sched_setaffinity(tid, cpus)
        except OSError:  # a thread that ended meanwhile: nothing to give back
            continue
