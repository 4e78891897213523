"""The remembered authentications (application/key_cache.py): used only while no principal or
key event has been written since, by this ledger or another one on the same store."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from application import principals
from application.key_cache import KeyCache
from application.ledger import Ledger
from application.store_config import eventsourcing_env
from tests.direct import seed_demo
from tests.stores import empty_store

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def two_ledgers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Ledger, Ledger]]:
    """Two ledgers on one store, as two processes would hold it."""
    with (
        empty_store(request.param, tmp_path) as url,
        Ledger(env=eventsourcing_env(url)) as here,
        Ledger(env=eventsourcing_env(url)) as there,
    ):
        seed_demo(here)
        yield here, there


class CountedLoads:
    """Counts the loads of the ledger's repository (the work a remembered key saves)."""

    def __init__(self, ledger: Ledger) -> None:
        self.count = 0
        get = ledger.repository.get

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return get(*args, **kwargs)

        ledger.repository.get = counted  # type: ignore[method-assign]


def test_a_remembered_key_is_answered_without_loading_it(demo_ledger: Ledger) -> None:
    cache = KeyCache(demo_ledger)
    key = principals.register(demo_ledger, "dana", "customer", ["carla"])
    first = cache.authenticate(key, NOW)
    loads = CountedLoads(demo_ledger)

    again = [cache.authenticate(key, NOW) for _ in range(3)]

    assert first is not None and first.name == "dana"
    assert again == [first] * 3
    assert loads.count == 0


def test_a_key_revoked_through_another_ledger_is_refused_at_once(
    two_ledgers: tuple[Ledger, Ledger],
) -> None:
    here, there = two_ledgers
    cache = KeyCache(here)
    kept = principals.register(here, "dana", "customer", ["carla"])
    revoked = principals.issue_key(here, "dana", scope="agent")
    assert cache.authenticate(kept, NOW) is not None
    assert cache.authenticate(revoked, NOW) is not None

    principals.revoke(there, revoked)

    assert cache.authenticate(revoked, NOW) is None
    found = cache.authenticate(kept, NOW)
    assert found is not None and (found.name, found.scope) == ("dana", "human")


def test_a_remembered_key_that_expires_is_refused_from_its_expiry(demo_ledger: Ledger) -> None:
    cache = KeyCache(demo_ledger)
    expiry = datetime.now(UTC) + timedelta(hours=1)
    key = principals.register(demo_ledger, "dana", "customer", [], expires_at=expiry)

    before = cache.authenticate(key, expiry - timedelta(seconds=1))
    at = cache.authenticate(key, expiry)

    assert before is not None and before.name == "dana"
    assert at is None


def test_refused_keys_are_not_remembered_and_the_memory_is_bounded(demo_ledger: Ledger) -> None:
    cache = KeyCache(demo_ledger, maxsize=2)
    keys = [principals.register(demo_ledger, f"user{i}", "auditor") for i in range(3)]

    assert [cache.authenticate(f"sk-made-up-{i}", NOW) for i in range(50)] == [None] * 50
    found = [cache.authenticate(key, NOW) for key in keys + keys]

    assert [view.name if view else None for view in found] == ["user0", "user1", "user2"] * 2
    assert len(cache._known) == 2
