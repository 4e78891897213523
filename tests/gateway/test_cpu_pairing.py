"""A program's run and the host thread answering its calls share one CPU while they take
turns (`gateway.core.program.cpu_pairing`), and everything gets its own CPUs back after:
the host thread, the worker, the sandbox runtime's threads. One run at a time is bound; a
run that starts meanwhile runs as it would without binding, and so does one whose worker
cannot be bound."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import pytest

from gateway.core.program import cpu_pairing
from gateway.core.program.cpu_pairing import RUNTIME_THREAD_NAME, CpuPairing
from gateway.core.program.sandbox import Sandbox
from gateway.core.program.type_checker import CheckedTypeError, TypeChecker
from tests.conftest import TEST_LIMITS

PROBE_STUB = "def probe() -> int: ...\n"
ALLOWED = os.sched_getaffinity(0) if cpu_pairing.SUPPORTED else set()

pytestmark = pytest.mark.skipif(
    len(ALLOWED) < 2, reason="binding needs CPU affinity (Linux) and two CPUs to choose from"
)


@dataclass
class Seen:
    """What the host saw of the CPUs from inside one call of the program."""

    host: set[int] = field(default_factory=set)
    workers: dict[int, set[int]] = field(default_factory=dict)  # worker pid -> its threads' CPUs
    runtime: set[int] = field(default_factory=set)


def children() -> list[int]:
    """This process's child processes (the sandbox workers)."""
    me = str(os.getpid())
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == me:
                found.append(int(entry))
    return found


def cpus_of_threads(pid: int) -> set[int]:
    cpus: set[int] = set()
    for tid in os.listdir(f"/proc/{pid}/task"):
        with suppress(OSError):  # a thread that ended meanwhile
            cpus |= os.sched_getaffinity(int(tid))
    return cpus


def runtime_cpus() -> set[int]:
    cpus: set[int] = set()
    for tid in os.listdir("/proc/self/task"):
        with suppress(OSError), open(f"/proc/self/task/{tid}/comm") as comm:
            if comm.read().strip() == RUNTIME_THREAD_NAME:
                cpus |= os.sched_getaffinity(int(tid))
    return cpus


def look(seen: Seen) -> None:
    seen.host = os.sched_getaffinity(0)
    seen.workers = {pid: cpus_of_threads(pid) for pid in children()}
    seen.runtime = runtime_cpus()


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    pool = Sandbox(TEST_LIMITS, workers=2)
    yield pool
    pool.close()


def probing(seen: Seen, then: threading.Event | None = None) -> Any:
    def dispatch(_name: str, _arguments: dict[str, Any], _line: int, _column: int) -> int:
        look(seen)
        if then is not None:
            then.wait(timeout=30)
        return 7

    return dispatch


def test_a_run_and_its_host_thread_share_one_cpu_and_give_it_back(sandbox: Sandbox) -> None:
    seen = Seen()

    run = sandbox.run("probe() + 1", PROBE_STUB, {"probe"}, probing(seen))

    assert run.result == 8
    assert len(seen.host) == 1
    (cpu,) = seen.host
    assert [pid for pid, cpus in seen.workers.items() if cpus == {cpu}], seen.workers
    assert seen.runtime == {cpu}  # the runtime relaying the turns, too
    # After the run: the host thread, every worker and the runtime have their CPUs back.
    assert os.sched_getaffinity(0) == ALLOWED
    assert all(cpus_of_threads(pid) == ALLOWED for pid in children())
    assert runtime_cpus() == ALLOWED


def test_a_run_that_starts_while_another_is_bound_runs_unbound(sandbox: Sandbox) -> None:
    first, second, release = Seen(), Seen(), threading.Event()
    answers: list[Any] = []
    holder = threading.Thread(
        target=lambda: answers.append(
            sandbox.run("probe()", PROBE_STUB, {"probe"}, probing(first, release)).result
        )
    )
    holder.start()
    try:
        for _ in range(300):
            if first.host:
                break
            threading.Event().wait(0.1)
        assert len(first.host) == 1, "the first program never reached its call"

        run = sandbox.run("probe()", PROBE_STUB, {"probe"}, probing(second))
    finally:
        release.set()
        holder.join(timeout=30)

    assert run.result == 7 and answers == [7]
    assert second.host == ALLOWED  # the second run's host thread kept all its CPUs
    assert os.sched_getaffinity(0) == ALLOWED and runtime_cpus() == ALLOWED


def test_a_worker_that_cannot_be_bound_leaves_everything_as_it_was() -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    pairing = CpuPairing()
    before = os.sched_getaffinity(0)

    with pairing.paired(gone.pid) as cpu:
        inside = os.sched_getaffinity(0)

    assert cpu is None and inside == before == os.sched_getaffinity(0)
    with CpuPairing(cpus=[min(ALLOWED)]).paired(os.getpid()) as cpu:
        assert cpu is None  # one CPU to choose from: every turn is on it already
    with pairing.paired(None) as cpu:
        assert cpu is None  # no worker attached


class Recording(CpuPairing):
    """The pairing itself, noting each binding and what the host thread was bound to."""

    def __init__(self) -> None:
        super().__init__()
        self.bound: list[tuple[int | None, set[int]]] = []

    @contextmanager
    def paired(self, worker_pid: int | None) -> Iterator[int | None]:
        with super().paired(worker_pid) as cpu:
            self.bound.append((cpu, os.sched_getaffinity(0)))
            yield cpu


def test_a_type_check_is_bound_to_one_cpu_as_a_run_is() -> None:
    pairing = Recording()
    checker = TypeChecker(sessions=1, wait_seconds=5, request_timeout=10, pairing=pairing)
    try:
        checker.check("total = probe() + 1", PROBE_STUB)
        with pytest.raises(CheckedTypeError):
            checker.check('total = probe() + "one"', PROBE_STUB)
    finally:
        checker.close()

    assert [cpus == {cpu} for cpu, cpus in pairing.bound] == [True, True]
    assert os.sched_getaffinity(0) == ALLOWED and runtime_cpus() == ALLOWED
