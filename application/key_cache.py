"""Authentication without loading the key and its principal on every request.

A key that authenticated is remembered with the position of the last principal or key
event the store held when it was loaded (`Ledger.principals_position`). Each request reads
that position again, one indexed read, and uses what it remembers only if the position has
not moved: any key issued or revoked, or any principal changed, by this process or any
other on the same store, moves it, and every remembered key is loaded afresh. So a
revocation takes effect at once everywhere, as when every request loaded the key itself.

Refused keys are not remembered (a stream of made-up keys must not fill the memory), and a
remembered key's expiry is compared with the clock on each request.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime

from application import principals
from application.ledger import Ledger
from application.principals import PrincipalView

# About 300 bytes a key: 10,000 keys are about 3 MB.
MAXSIZE = 10_000


@dataclass(frozen=True)
class _Known:
    position: int
    principal: PrincipalView
    expires_at: datetime | None


class KeyCache:
    def __init__(self, ledger: Ledger, maxsize: int = MAXSIZE) -> None:
        self.ledger = ledger
        self.maxsize = maxsize
        self._known: OrderedDict[str, _Known] = OrderedDict()
        self._lock = threading.Lock()

    def authenticate(self, key: str, now: datetime) -> PrincipalView | None:
        """As `principals.authenticate`: the key's principal, or None for an unknown,
        revoked or expired key."""
        # Read before the key is loaded: a change committed in between is then either seen
        # by the load or moves the position past the one remembered with it.
        position = self.ledger.principals_position()
        remembered = self.remembered(key, position, now)
        if remembered is not None:
            return remembered
        digest = principals.hash_key(key)
        loaded = principals.authenticated_key(self.ledger, key, now)
        if loaded is None:
            with self._lock:
                self._known.pop(digest, None)
            return None
        principal, expires_at = loaded
        with self._lock:
            self._known[digest] = _Known(position, principal, expires_at)
            self._known.move_to_end(digest)
            while len(self._known) > self.maxsize:
                self._known.popitem(last=False)
        return principal

    def remembered(self, key: str, position: int, now: datetime) -> PrincipalView | None:
        """The key's principal if it was remembered at `position` (the store's current
        principals position, read by the caller) and has not expired; otherwise None, and
        `authenticate` decides."""
        known = self.known(key, now)
        if known is None or known[1] != position:
            return None
        return known[0]

    def known(self, key: str, now: datetime) -> tuple[PrincipalView, int] | None:
        """The key's principal, if remembered and not expired, with the principals position
        it was remembered at: usable only while the store's position is still that one (a
        caller that reads the position in the same statement as its next step)."""
        digest = principals.hash_key(key)
        with self._lock:
            known = self._known.get(digest)
            if known is None:
                return None
            self._known.move_to_end(digest)
        if known.expires_at is not None and now >= known.expires_at:
            return None
        return known.principal, known.position
