"""Give the C heap's free pages back to the system every so often (glibc only).

Measured under a steady mixed load on Postgres (`make bench-soak`): the memory the process
had in use stayed flat (glibc's malloc in use about 25 MB, Python's blocks and objects
alike), yet glibc kept the freed chunks between live ones in its heap, so RSS grew by
about 0.14 KB per request, for as long as the load lasted. `malloc_trim(0)` hands those
free pages back (it walks every arena), and RSS then stays flat. It takes a few ms for a
heap of tens of MB, in a worker thread, once every TRIM_SECONDS.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import anyio
import anyio.to_thread

TRIM_SECONDS = 30.0


def heap_trimmer() -> Callable[[], object] | None:
    """A call that returns free heap pages to the system, or None where the C library
    has no malloc_trim (musl, macOS): there is then nothing to do."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: trim(0)


async def trim_heap_periodically(every: float = TRIM_SECONDS) -> None:
    """Until cancelled: every `every` seconds, trim the heap off the event loop."""
    trim = heap_trimmer()
    if trim is None:
        return
    while True:
        await anyio.sleep(every)
        await anyio.to_thread.run_sync(trim)
