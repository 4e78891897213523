"""The two halves of Sluice's log handler: a queue handler for the threads that log (the
event loop among them) and a listener thread that formats and writes.

A log call on the event loop makes its record, merges the message and puts it on a bounded
queue: no traceback is formatted there (formatting reads source files), nothing is written.
When the queue is full (the writer cannot keep up, or nobody reads the stream) the record
is dropped and counted, and the writer says how many before its next line: a flood of
errors costs the server neither memory without bound nor a blocked loop.
"""

from __future__ import annotations

import copy
import logging
import queue
import threading
from logging.handlers import QueueHandler, QueueListener
from typing import Any, TextIO

from gateway.logs.context import REQUEST_ID
from gateway.logs.json_lines import JsonLines

QUEUE_SIZE = 10_000
STOP_SECONDS = 5.0


class Drops:
    """How many records the queue refused since the writer last said so."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0

    def add(self) -> None:
        with self._lock:
            self._count += 1

    def take(self) -> int:
        with self._lock:
            count, self._count = self._count, 0
        return count


class SluiceQueueHandler(QueueHandler):
    """Puts each record on the queue with its message merged and its traceback unformatted."""

    def __init__(self, records: queue.Queue[Any], drops: Drops) -> None:
        super().__init__(records)
        self.drops = drops

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        # The stdlib's prepare formats the record here, traceback and all, in the caller's
        # thread. The merged message is cheap and fixes the arguments' values as they are now.
        record = copy.copy(record)
        _access_fields(record)
        if getattr(record, "request_id", None) is None:
            request_id = REQUEST_ID.get()  # the request this thread or task serves, if any
            if request_id is not None:
                record.request_id = request_id
        record.msg = record.getMessage()
        record.args = None
        return record

    def enqueue(self, record: logging.LogRecord) -> None:
        try:
            self.queue.put_nowait(record)
        except queue.Full:
            self.drops.add()


def _access_fields(record: logging.LogRecord) -> None:
    """uvicorn's access record carries the request in its arguments: keep them as fields."""
    args = record.args
    if record.name == "uvicorn.access" and isinstance(args, tuple) and len(args) == 5:
        record.client, record.method, record.path, _, record.status = args


class Writer(logging.StreamHandler[TextIO]):
    """Writes each record as one JSON line, after a line for any records dropped."""

    def __init__(
        self, stream: TextIO, drops: Drops, formatter: logging.Formatter | None = None
    ) -> None:
        super().__init__(stream)
        self.drops = drops
        self.setFormatter(formatter or JsonLines())

    def emit(self, record: logging.LogRecord) -> None:
        dropped = self.drops.take()
        if dropped:
            super().emit(_dropped(dropped))
        super().emit(record)


def _dropped(count: int) -> logging.LogRecord:
    return logging.LogRecord(
        "sluice.logs", logging.WARNING, __file__, 0,
        "%d log record(s) dropped: they came faster than the log could be written", (count,),
        None,
    )  # fmt: skip


class Listener(QueueListener):
    """A QueueListener whose stop never waits for ever, even when the stream is stuck."""

    def stop(self) -> None:
        thread = self._thread
        if thread is None:
            return
        try:
            self.queue.put(self._sentinel, timeout=STOP_SECONDS)  # type: ignore[attr-defined]
        except queue.Full:
            return  # the writer is stuck: its daemon thread ends with the process
        thread.join(STOP_SECONDS)
        self._thread = None
