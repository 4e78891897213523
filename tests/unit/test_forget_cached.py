"""A ledger whose store is another server now (a failover) forgets what it cached: the new
server may lack a commit the last one showed (tests/ha/test_async_replication.py)."""

from __future__ import annotations

from application.aggregate_cache import HotAggregates
from application.ledger import Ledger
from application.repository import BoundedRepository
from domain.account import Account, account_id
from tests.direct import seed_demo


def test_forgetting_empties_the_cache_of_accounts() -> None:
    with Ledger(env={"PERSISTENCE_MODULE": "infrastructure.popo"}) as ledger:
        seed_demo(ledger)
        ledger.load_keyed(Account, "alice")
        repository = ledger.repository
        assert isinstance(repository, BoundedRepository)
        assert repository.get_as_cached(account_id("alice")) is not None

        repository.forget_all()

        assert repository.get_as_cached(account_id("alice")) is None
        # And it fills again from the store.
        assert ledger.load_keyed(Account, "alice").balance == 100
        assert repository.get_as_cached(account_id("alice")) is not None


def test_a_cleared_cache_holds_nothing_and_takes_new_entries() -> None:
    cache = HotAggregates(maxsize=2, kinds=(str,))
    cache.put(account_id("a"), "a")
    cache.put(account_id("b"), "b")

    cache.clear()

    for name in ("a", "b"):
        try:
            cache.get(account_id(name))
        except KeyError:
            continue
        raise AssertionError(f"{name} is still cached")
    cache.put(account_id("c"), "c")
    assert cache.get(account_id("c")) == "c"
