"""One log record as one JSON object on one line, of bounded size.

    {"time": "2026-12-01T05:00:12.365Z", "level": "ERROR", "logger": "sluice.http",
     "message": "unexpected error on GET /v1/accounts", "method": "GET", "path": "/v1/accounts",
     "error_type": "decimal.InvalidOperation", "error": "[<class 'decimal.ConversionSyntax'>]",
     "traceback": "Traceback (most recent call last):\\n  File ..."}

The line is ASCII: every newline, control character and non-ASCII character is a JSON
escape, so a message quoting a request cannot redraw a terminal or forge a second line.
Each text is bounded once escaped: the message to 4 KiB, the error to 1 KiB, the traceback
to 8 KiB (its end kept: the innermost frames and the error), so a line stays under 16 KiB.
A traceback shows the innermost 12 frames of the error itself (not the chain of errors it
was raised from: their type and text are named on its last line). Every text has its
credentials replaced by *** (gateway/logs/redact.py).
"""

from __future__ import annotations

import json
import logging
import time
import traceback
from typing import Any

from gateway.logs.redact import redact

MAX_MESSAGE = 4096
MAX_ERROR = 1024
MAX_TRACEBACK = 8192
MAX_FIELD = 512
MAX_FRAMES = 12
# Structured fields a record may carry (`extra={"method": ...}`), written when present.
FIELDS = ("request_id", "method", "path", "route", "status", "duration_ms", "client")
CUT = "[{count} characters cut]"


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        try:
            return json.dumps(entry(record), ensure_ascii=True)
        except Exception as error:  # a record that cannot be read is still one line
            return json.dumps(
                {
                    "time": _time(record),
                    "level": "ERROR",
                    "logger": "sluice.logs",
                    "message": bounded(f"a {record.name} record could not be written: "
                                       f"{_text(error)}", MAX_MESSAGE),
                },
                ensure_ascii=True,
            )  # fmt: skip


def entry(record: logging.LogRecord) -> dict[str, Any]:
    """The record's parts, each bounded and with its credentials hidden."""
    entry: dict[str, Any] = {
        "time": _time(record),
        "level": record.levelname,
        "logger": bounded(record.name, MAX_FIELD),
        "message": bounded(redact(record.getMessage()), MAX_MESSAGE),
    }
    for name in FIELDS:
        value = record.__dict__.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            entry[name] = value
        elif value is not None:
            entry[name] = bounded(redact(str(value)), MAX_FIELD)
    error = record.exc_info[1] if record.exc_info else None
    if error is not None:
        entry["error_type"] = _qualified(type(error))
        entry["error"] = bounded(redact(_text(error)), MAX_ERROR)
        shown = redact(short_traceback(error))
        entry["traceback"] = bounded(shown, MAX_TRACEBACK, keep_end=True)
    if record.stack_info:
        entry["stack"] = bounded(redact(record.stack_info), MAX_TRACEBACK, keep_end=True)
    return entry


def short_traceback(error: BaseException) -> str:
    """The error's traceback, its innermost MAX_FRAMES frames; the error it was raised from
    is named on one line under the header, not shown frame by frame."""
    frames = len(traceback.extract_tb(error.__traceback__))
    lines = traceback.format_exception(
        type(error), error, error.__traceback__, limit=-MAX_FRAMES, chain=False
    )
    if frames > MAX_FRAMES and lines:
        lines.insert(1, f"  ... {frames - MAX_FRAMES} outer frame(s) not shown\n")
    origin = error.__cause__ or (None if error.__suppress_context__ else error.__context__)
    if origin is not None and lines:
        lines.insert(1, f"  (raised from {_qualified(type(origin))}: {_text(origin)})\n")
    return "".join(lines)


def _time(record: logging.LogRecord) -> str:
    seconds = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
    return f"{seconds}.{int(record.msecs):03d}Z"


def _qualified(kind: type[BaseException]) -> str:
    if kind.__module__ == "builtins":
        return kind.__qualname__
    return f"{kind.__module__}.{kind.__qualname__}"


def _text(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:
        return f"(a {type(error).__qualname__} whose text cannot be read)"


def bounded(text: str, limit: int, *, keep_end: bool = False) -> str:
    """`text` if it takes at most `limit` characters once JSON-escaped as ASCII; otherwise
    its start (or, with `keep_end`, its end) that fits, marked with how much was cut."""
    if len(text) <= limit and len(json.dumps(text)) - 2 <= limit:
        return text
    # The marker's room: enough for any count a Python string can have.
    budget = max(limit - len(CUT.format(count=10**19)) - 1, 0)
    chars = reversed(text) if keep_end else iter(text)
    kept: list[str] = []
    used = 0
    for char in chars:
        used += _escaped_size(char)
        if used > budget:
            break
        kept.append(char)
    marker = CUT.format(count=len(text) - len(kept))
    if keep_end:
        return marker + " " + "".join(reversed(kept))
    return "".join(kept) + " " + marker


def _escaped_size(char: str) -> int:
    if char in '"\\\n\r\t\b\f':
        return 2
    if " " <= char <= "~":
        return 1
    return 12 if ord(char) > 0xFFFF else 6  # \uXXXX, or a surrogate pair of them
