"""Text that came from elsewhere, made inert and bounded before it is stored or shown.

A program's printed output, an exception's message, a result, a refusal quoting a value:
none of it went through a validated field. It may hold NUL (which Postgres text refuses),
ESC sequences (which redraw a terminal), C1 controls, bidi overrides, and be of any length.
So each such text is stored, returned and shown as `inert` makes it: every character that
is not printable is written as its Python escape (`\\x1b`, `\\x00`, `\\u202e`), and `clip`
bounds it in UTF-8 bytes, marking the cut with how much was left out.

Printable means `str.isprintable()`, plus the newline where a text has lines (printed
output, a program's source). A backslash stays as it is: an escape written by the program
itself reads the same as one made here, which is inert either way.
"""

from __future__ import annotations

import json
from typing import Any

# How a cut is marked: the text kept, then this, naming what was left out.
CUT = "… [{count} more characters cut]"
# Room kept for the marker: enough for any count a Python string can have.
_MARKER_ROOM = len(CUT.format(count=10**19).encode())


def inert(text: str, *, lines: bool = False) -> str:
    """`text` with each character that is not printable written as its escape; with
    `lines`, newlines are kept (the text is shown as lines, each set apart by the caller)."""
    if text.isprintable():
        return text
    return "".join(_shown(char, lines) for char in text)


def clip(text: str, max_bytes: int, *, lines: bool = False) -> str:
    """`inert(text)` in at most `max_bytes` UTF-8 bytes; a longer one is cut, and ends with
    `… [N more characters cut]`, N counting characters of `text` itself."""
    if len(text) <= max_bytes:
        shown = inert(text, lines=lines)
        if len(shown.encode()) <= max_bytes:
            return shown
    budget = max(max_bytes - _MARKER_ROOM, 0)
    kept: list[str] = []
    used = 0
    for count, char in enumerate(text):
        piece = _shown(char, lines)
        size = len(piece.encode())
        if used + size > budget:
            return "".join(kept) + CUT.format(count=len(text) - count)
        kept.append(piece)
        used += size
    return "".join(kept)  # pragma: no cover (the text fit after all)


def inert_value(value: Any, *, lines: bool = False) -> Any:
    """A JSON-ready value with every string in it (keys too) made inert."""
    if isinstance(value, str):
        return inert(value, lines=lines)
    if isinstance(value, dict):
        return {inert(str(k)): inert_value(v, lines=lines) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [inert_value(v, lines=lines) for v in value]
    return value


def clip_value(value: Any, max_bytes: int) -> Any:
    """`value` itself (strings made inert) when its JSON takes at most `max_bytes`; else the
    start of that JSON as a string, cut and marked like any long text."""
    shown = inert_value(value)
    if _surely_within(shown, max_bytes, depth=0):
        return shown  # too small to need its JSON written out to be measured
    try:
        encoded = json.dumps(shown, ensure_ascii=False)
    except (TypeError, ValueError):
        return clip(repr(value), max_bytes)
    if len(encoded.encode()) <= max_bytes:
        return shown
    return clip(encoded, max_bytes)


# A JSON string takes at most 6 bytes a character (`\\uXXXX`) and its two quotes.
_STRING_BYTES = 6
_INT_BYTES = 20  # a 64-bit integer, with its sign
_FLOAT_BYTES = 32
_DEPTH = 16


def _surely_within(value: Any, budget: int, *, depth: int) -> bool:
    """True when the JSON of `value` (inert JSON types only) surely takes at most `budget`
    bytes, by an upper bound counted without writing it; False when unsure."""
    return _at_most(value, budget, depth) >= 0


def _at_most(value: Any, budget: int, depth: int) -> int:
    """`budget` less an upper bound of `value`'s JSON size; negative once past it or unsure."""
    if isinstance(value, str):
        return budget - _STRING_BYTES * len(value) - 2
    if value is None or isinstance(value, bool):
        return budget - 5
    if isinstance(value, int):
        return budget - _INT_BYTES if -(10**18) < value < 10**18 else -1
    if isinstance(value, float):
        return budget - _FLOAT_BYTES
    if depth >= _DEPTH:
        return -1
    if isinstance(value, dict):
        budget -= 2
        for key, item in value.items():
            if not isinstance(key, str):
                return -1
            budget = _at_most(item, budget - _STRING_BYTES * len(key) - 4, depth + 1)
            if budget < 0:
                return budget
        return budget
    if isinstance(value, list):
        budget -= 2
        for item in value:
            budget = _at_most(item, budget - 2, depth + 1)
            if budget < 0:
                return budget
        return budget
    return -1


def inert_json(encoded: str) -> str:
    """JSON text with any character that is not printable inside its strings written as a
    `\\uXXXX` escape: the same JSON value, safe to print to a terminal."""
    if encoded.isprintable():
        return encoded
    return "".join(_json_escape(char) for char in encoded)


def _shown(char: str, lines: bool) -> str:
    if char.isprintable() or (lines and char == "\n"):
        return char
    return repr(char)[1:-1]


def _json_escape(char: str) -> str:
    if char.isprintable() or char == "\n":
        return char
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
