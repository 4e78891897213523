"""One log record as one JSON object on one line, of bounded size.

    {"time": "2026-12-01T05:00:12.365Z", "level": "ERROR", "logger": "sluice.http",
     "message": "unexpected error on GET /v1/accounts", "method": "GET", "path": "/v1/accounts",
     "error_type": "decimal.InvalidOperation", "error": "[<class 'decimal.ConversionSyntax'>]",
     "traceback": "Traceback (most recent call last):\\n  File ..."}

The line is ASCII: every newline, control character and non-ASCII character is a JSON
escape, so a message quoting a request cannot redraw a terminal or forge a second line.
Each text is bounded once escaped: the message to 4 KiB, the error to 1 KiB, the traceback
to 8 KiB (its end kept: the innermost frames and the error), so a line stays under 16 KiB.
"""

from __future__ import annotations

import json
import logging
import time
import traceback
from typing import Any

MAX_MESSAGE = 4096
MAX_ERROR = 1024
MAX_TRACEBACK = 8192
MAX_FIELD = 512
# Structured fields a record may carry (`extra={"method": ...}`), written when present.
FIELDS = ("method", "path", "status", "client")
CUT = "[{count} characters cut]"


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        try:
            return json.dumps(_entry(record), ensure_ascii=True)
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


def _entry(record: logging.LogRecord) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "time": _time(record),
        "level": record.levelname,
        "logger": bounded(record.name, MAX_FIELD),
        "message": bounded(record.getMessage(), MAX_MESSAGE),
    }
    for name in FIELDS:
        value = record.__dict__.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            entry[name] = value
        elif value is not None:
            entry[name] = bounded(str(value), MAX_FIELD)
    error = record.exc_info[1] if record.exc_info else None
    if error is not None:
        entry["error_type"] = _qualified(type(error))
        entry["error"] = bounded(_text(error), MAX_ERROR)
        shown = "".join(traceback.format_exception(error))
        entry["traceback"] = bounded(shown, MAX_TRACEBACK, keep_end=True)
    if record.stack_info:
        entry["stack"] = bounded(record.stack_info, MAX_TRACEBACK, keep_end=True)
    return entry


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
