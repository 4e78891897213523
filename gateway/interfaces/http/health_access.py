"""Who reads /health's details: an admin's or an auditor's key, checked without waiting.

/health answers anyone, within a second: its status and the names of its checks. The
details (the log position, dead letters, the projection lag, why a check failed) tell how
busy the ledger is and how it is built, so they are for operators only. A key is checked in
a thread of its own, awaited for the checks' own deadline, at most a few at a time; a key
that cannot be checked in time is answered as no key at all. An operator's key verified in
the last minute is believed without asking the store again, so the operator still reads why
the store is degraded while the store does not answer (a revoked key keeps that for at most
the minute).
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future

from application.principals import PrincipalView
from gateway.core.policy.decisions import sees_health_details

REMEMBER_SECONDS = 60.0
REMEMBERED = 64
CHECKING_AT_ONCE = 4


class HealthAccess:
    def __init__(self, authenticate: Callable[[str], PrincipalView], deadline: float) -> None:
        self.authenticate = authenticate
        self.deadline = deadline
        self._checking = threading.BoundedSemaphore(CHECKING_AT_ONCE)
        self._lock = threading.Lock()
        self._verified: OrderedDict[str, float] = OrderedDict()

    async def sees_details(self, authorization: str | None) -> bool:
        """True for an admin's or auditor's Bearer key; False for anything else, at once
        or after the deadline."""
        scheme, _, key = (authorization or "").partition(" ")
        key = key.strip()
        if scheme.lower() != "bearer" or not key:
            return False
        digest = hashlib.sha256(key.encode()).hexdigest()
        if self._remembered(digest):
            return True
        if not self._checking.acquire(blocking=False):
            return False  # as many checks as allowed already wait on the store
        checked: Future[bool] = Future()
        threading.Thread(
            target=self._check, args=(key, digest, checked), name="health-key", daemon=True
        ).start()
        try:
            return await asyncio.wait_for(
                asyncio.shield(asyncio.wrap_future(checked)), self.deadline
            )
        except TimeoutError:
            return False

    def _check(self, key: str, digest: str, checked: Future[bool]) -> None:
        try:
            staff = sees_health_details(self.authenticate(key))
        except Exception:
            staff = False  # unknown, revoked, or the store failed: no details
        finally:
            self._checking.release()
        if staff:
            self._remember(digest)
        checked.set_result(staff)

    def _remembered(self, digest: str) -> bool:
        with self._lock:
            verified = self._verified.get(digest)
            return verified is not None and time.monotonic() - verified < REMEMBER_SECONDS

    def _remember(self, digest: str) -> None:
        with self._lock:
            self._verified[digest] = time.monotonic()
            self._verified.move_to_end(digest)
            while len(self._verified) > REMEMBERED:
                self._verified.popitem(last=False)
