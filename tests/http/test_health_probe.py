"""/health's checks run one at a time in a thread of their own, awaited with a deadline."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from gateway.interfaces.http.probe import Finding, Probe


@pytest.mark.asyncio
async def test_a_hung_check_is_reported_in_time_and_not_started_twice() -> None:
    release = threading.Event()
    runs: list[str] = []

    def check(subject: str) -> Finding:
        runs.append(threading.current_thread().name)
        release.wait(10)
        return Finding(True, f"{subject} answers", {"seen": len(runs)})

    probe: Probe[str] = Probe("store", check, deadline=0.2)
    started = time.monotonic()
    findings = await asyncio.gather(*(probe("the store") for _ in range(20)))
    assert time.monotonic() - started < 1
    assert {f.detail for f in findings} == {"no answer within 0.2 s"}
    assert not any(f.ok for f in findings)
    assert len(runs) == 1
    assert runs[0] == "health-store"

    release.set()
    again = await probe("the store")
    assert again == Finding(True, "the store answers", {"seen": 1})  # the run that hung
    assert await probe("the store") == Finding(True, "the store answers", {"seen": 2})


@pytest.mark.asyncio
async def test_a_check_that_raises_is_a_failed_finding_naming_the_error() -> None:
    def check(_: None) -> Finding:
        raise ConnectionError("the link is cut")

    assert await Probe("store", check, deadline=1)(None) == Finding(
        False, "ConnectionError: the link is cut"
    )
