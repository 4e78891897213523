"""MCP sessions held per principal (issue 14): one key cannot use up a process's sessions.

A session lives in the process that opened it, and so is counted there. A request that
would open one takes a place first (refused past the cap, before any session exists);
the place becomes the session once the server answers with its id, and is given back
however the session ends: the client's DELETE, the idle timeout, a crash, a shutdown.

Used on the event loop only (ASGI and the session manager's tasks): no locks.
"""

from __future__ import annotations

from collections import Counter


class SessionQuota:
    def __init__(self, per_principal: int) -> None:
        self.per_principal = per_principal
        self._held: Counter[str] = Counter()  # sessions open and opening, per principal
        self._owners: dict[str, str] = {}  # session id -> principal

    def held(self, principal: str) -> int:
        return self._held[principal]

    def reserve(self, principal: str) -> bool:
        """Take a place for a session about to open; False past the cap (nothing taken)."""
        if self._held[principal] >= self.per_principal:
            return False
        self._held[principal] += 1
        return True

    def opened(self, principal: str, session_id: str) -> None:
        """The reserved place is now the session `session_id`."""
        self._owners[session_id] = principal

    def unreserve(self, principal: str) -> None:
        """No session came of the reserved place."""
        self._give_back(principal)

    def ended(self, session_id: str) -> None:
        """The session ended (any number of reports of it count once)."""
        principal = self._owners.pop(session_id, None)
        if principal is not None:
            self._give_back(principal)

    def _give_back(self, principal: str) -> None:
        self._held[principal] -= 1
        if self._held[principal] <= 0:
            del self._held[principal]
