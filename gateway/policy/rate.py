"""Programs per minute, per principal.

Counted in this process: N gateway processes admit up to N times the cap between them.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable


class RateLimiter:
    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self._seen: dict[str, deque[float]] = defaultdict(deque)
        self._lock = threading.Lock()

    def admit(self, principal: str) -> float | None:
        """None if admitted; else the seconds to wait before the next program is admitted."""
        now = self.clock()
        with self._lock:
            seen = self._seen[principal]
            while seen and now - seen[0] >= 60:
                seen.popleft()
            if len(seen) >= self.per_minute:
                return 60 - (now - seen[0])
            seen.append(now)
            return None
