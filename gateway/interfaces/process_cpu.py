"""One CPU for a serving process: `sluice serve --cpu N`.

A serving process runs Python code one thread at a time (the GIL), and its threads (the
event loop, the worker running a request, the store's lanes, the projector) hand the GIL
to one another many times per request. Spread over CPUs, each hand-over wakes a thread on
another CPU, which on this kind of virtual machine has halted meanwhile; on one CPU the
hand-over is cheap. Bound to one CPU, a process served 1.2-1.8x the transfers and programs
it served unbound (BENCHMARKS.md, "One CPU per serving process"). The way to use more CPUs
is then more processes, each bound to its own.

The binding is made before the process starts any thread or sandbox worker: threads and
child processes inherit it.
"""

from __future__ import annotations

import os


def allowed_cpus() -> set[int]:
    """The CPUs this process may run on; empty where the OS cannot say (not Linux)."""
    return os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()


def bind_to_cpu(cpu: int) -> str | None:
    """Bind this process to CPU `cpu`: None once bound, otherwise why it cannot be."""
    if not hasattr(os, "sched_setaffinity"):
        return f"--cpu {cpu}: this system cannot bind a process to a CPU"
    allowed = allowed_cpus()
    if cpu not in allowed:
        return f"--cpu {cpu}: this process may only run on CPU {_spans(sorted(allowed))}"
    # Every thread started so far (0: the calling thread, where /proc cannot list them).
    threads = [int(tid) for tid in os.listdir("/proc/self/task")] if os.path.isdir("/proc") else [0]
    try:
        for tid in threads:
            os.sched_setaffinity(tid, {cpu})
    except OSError as error:
        return f"--cpu {cpu}: the system refused the binding ({error.strerror})"
    return None


def _spans(cpus: list[int]) -> str:
    """0-3,6 for [0, 1, 2, 3, 6]."""
    spans: list[str] = []
    start = previous = cpus[0]
    for cpu in [*cpus[1:], None]:
        if cpu is not None and cpu == previous + 1:
            previous = cpu
            continue
        spans.append(f"{start}" if start == previous else f"{start}-{previous}")
        if cpu is not None:
            start = previous = cpu
    return ",".join(spans)
