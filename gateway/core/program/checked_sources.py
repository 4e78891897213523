"""The programs that passed the type check, remembered so that the same text against the same
stubs is not checked again.

A check's answer depends on nothing but the program's text and the stubs it is checked
against, so a program that passed once passes again: a proposal previewed again (its
accounts moved, or its confirmation met a conflict), or the same program proposed again,
skips the checker's round trip. Only passes are kept (a failure is checked, and told, each
time), at most `size` of them, the least recently used forgotten first; the key is a digest
of the stubs and of the text, so a remembered program holds no text.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

DEFAULT_SIZE = 4096


class CheckedSources:
    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self.size = size
        self._passed: OrderedDict[bytes, None] = OrderedDict()
        self._lock = threading.Lock()

    def passed(self, source: str, stubs: str) -> bool:
        """Whether this text passed the check against these stubs (and is still remembered)."""
        key = _key(source, stubs)
        with self._lock:
            if key not in self._passed:
                return False
            self._passed.move_to_end(key)
            return True

    def remember(self, source: str, stubs: str) -> None:
        key = _key(source, stubs)
        with self._lock:
            self._passed[key] = None
            self._passed.move_to_end(key)
            while len(self._passed) > self.size:
                self._passed.popitem(last=False)


def _key(source: str, stubs: str) -> bytes:
    digest = hashlib.blake2b(digest_size=32)
    for part in (stubs, source):
        data = part.encode()
        digest.update(len(data).to_bytes(8, "big"))  # no two pairs share one byte string
        digest.update(data)
    return digest.digest()
