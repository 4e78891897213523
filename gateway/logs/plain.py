"""One log record as plain text for a person: `TIME LEVEL LOGGER MESSAGE key=value ...`.

    2026-12-01T05:00:12.365Z INFO  sluice.access GET /v1/accounts 200 3.1 ms request_id=4f9d...

The same parts as the JSON line (gateway/logs/json_lines.py), bounded and with credentials
hidden. The record is its first line; a traceback follows on lines indented by four spaces,
so no text a request put in a message can start a line that looks like a record: control
characters in the message and fields are escaped as in a Python string.
"""

from __future__ import annotations

import json
import logging
import re

from gateway.logs.json_lines import FIELDS, entry

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_BARE = re.compile(r"^[A-Za-z0-9._:/{}@+-]+$")


class PlainLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        parts = entry(record)
        head = f"{parts['time']} {parts['level']:<5} {parts['logger']} {_escaped(parts['message'])}"
        fields = [f"{name}={_value(parts[name])}" for name in FIELDS if name in parts]
        if "error_type" in parts:
            fields.append(f"error={_value(parts['error_type'] + ': ' + parts['error'])}")
        lines = [" ".join([head, *fields])]
        for block in ("traceback", "stack"):
            if block in parts:
                lines += ["    " + _escaped(line) for line in parts[block].rstrip().splitlines()]
        return "\n".join(lines)


def _escaped(text: str) -> str:
    return _CONTROL.sub(lambda m: json.dumps(m[0])[1:-1], text)


def _value(value: object) -> str:
    text = str(value)
    return text if _BARE.match(text) else json.dumps(text)
