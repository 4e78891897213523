"""Text a caller gives is printable: every store can hold it and every screen shows it as is.

Refused, wherever a caller's text is taken (memos, owners, program sources, requests,
messages): the control characters (C0, DEL and C1; a text of several lines keeps tab, line
feed and carriage return), lone surrogates (not text: no store can encode them), the bidi
controls that reorder what a reader sees (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066
to U+2069) and the line and paragraph separators U+2028 and U+2029.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ALWAYS = (
    "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"  # control characters but tab, LF and CR
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi controls
    "\u2028\u2029"  # line and paragraph separators
    "\ud800-\udfff"  # lone surrogates
)
_ONE_LINE = re.compile(f"[\t\n\r{_ALWAYS}]")
_LINES = re.compile(f"[{_ALWAYS}]")
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_SEPARATORS = {"\u2028": "line separator", "\u2029": "paragraph separator"}


@dataclass(frozen=True)
class Unprintable:
    """The first character of a text that is not allowed, and where it is (0-based)."""

    index: int
    character: str

    @property
    def what(self) -> str:
        """`the control character U+0000`, `the bidi control U+202E`, ..."""
        code = ord(self.character)
        if self.character in _BIDI:
            kind = "bidi control"
        elif self.character in _SEPARATORS:
            kind = _SEPARATORS[self.character]
        elif 0xD800 <= code <= 0xDFFF:
            kind = "lone surrogate"
        else:
            kind = "control character"
        return f"the {kind} U+{code:04X}"

    def __str__(self) -> str:
        return f"{self.what} at character {self.index + 1} is not allowed: text must be printable"


def unprintable(text: str, *, lines: bool = False) -> Unprintable | None:
    """The first character not allowed in `text`, or None; `lines` keeps tab, LF and CR."""
    found = (_LINES if lines else _ONE_LINE).search(text)
    return None if found is None else Unprintable(found.start(), found.group())


def line_and_column(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of a character, as an editor counts them."""
    before = text[:index]
    return before.count("\n") + 1, index - (before.rfind("\n") + 1) + 1
