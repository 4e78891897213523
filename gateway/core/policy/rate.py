"""Requests or programs per minute, per principal (P6).

Counted in the store (`application.rate_counter`): every gateway process on one store
shares one cap, and a restart forgets nothing. No 60 s ever admits more than the cap.
"""

from __future__ import annotations

from application.ledger import Ledger
from application.principals import PrincipalView
from application.rate_counter import MemoryRateCounter, RateCounter, open_rate_counter
from gateway.core.errors import GatewayError

REQUESTS = "requests_per_minute"
PROGRAMS = "programs_per_minute"


class RateLimiter:
    def __init__(self, per_minute: int, counter: RateCounter | None = None) -> None:
        self.per_minute = per_minute
        self.counter = counter if counter is not None else MemoryRateCounter("in process")

    @classmethod
    def in_store(cls, ledger: Ledger, cap: str, per_minute: int) -> RateLimiter:
        """The limiter of cap `cap` (REQUESTS or PROGRAMS) counted in the ledger's store."""
        return cls(per_minute, open_rate_counter(ledger, cap))

    def admit(self, principal: str) -> float | None:
        """None if admitted; else the seconds to wait before the next one is admitted."""
        return self.counter.admit(principal, self.per_minute)

    def admit_or_refuse(self, principal: PrincipalView, cap: str, may: str) -> None:
        """Count one of the principal's; past the cap, a rate-limited refusal that names the
        cap, what the principal `may` do, and when to retry."""
        _refuse_past_cap(principal, cap, may, self.admit(principal.name))

    def admit_request(self, principal: PrincipalView) -> None:
        """Count one request of the principal; past its cap, a rate-limited refusal."""
        self.admit_or_refuse(principal, REQUESTS, self._may_request())

    @property
    def admits_async(self) -> bool:
        """True when `async_admit_request` never blocks its event loop."""
        return self.counter.admits_async

    async def async_admit_request(self, principal: PrincipalView) -> None:
        """As `admit_request`, on the caller's event loop."""
        wait = await self.counter.async_admit(principal.name, self.per_minute)
        _refuse_past_cap(principal, REQUESTS, self._may_request(), wait)

    async def async_admit_request_unless_moved(
        self, principal: PrincipalView, ledger: Ledger, position: int
    ) -> bool | None:
        """As `async_admit_request`, counted only while the ledger's principals position is
        still `position`, read with the count in one statement: False when it has moved
        (nothing counted), None when the counter cannot read it so."""
        folded = await self.counter.async_admit_unless_moved(
            principal.name, self.per_minute, ledger, position
        )
        if folded is None:
            return None
        unmoved, wait = folded
        if unmoved:
            _refuse_past_cap(principal, REQUESTS, self._may_request(), wait)
        return unmoved

    def _may_request(self) -> str:
        return f"make {self.per_minute} requests a minute"

    def close(self) -> None:
        self.counter.close()


def _refuse_past_cap(principal: PrincipalView, cap: str, may: str, wait: float | None) -> None:
    if wait is not None:
        raise GatewayError(
            "rate-limited",
            f"cap {cap}: principal {principal.name} may {may}; retry in {wait:.0f} s",
            extra={"retry_after": max(1, round(wait))},
        )
