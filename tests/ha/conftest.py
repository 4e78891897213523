"""A PostgreSQL primary and standby of the tests' own (tests/ha/pair.py), one per test."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.ha.pair import Pair, PairUnavailableError, postgres_pair


def _pair(*, synchronous: bool) -> Iterator[Pair]:
    try:
        made = postgres_pair(synchronous=synchronous)
        pair = made.__enter__()
    except PairUnavailableError as problem:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true and a PostgreSQL pair is required: {problem}", pytrace=False)
        pytest.skip(f"no PostgreSQL pair: {problem}")
    try:
        yield pair
    finally:
        made.__exit__(None, None, None)


@pytest.fixture
def pair() -> Iterator[Pair]:
    """Synchronous replication: the primary acknowledges a commit once the standby has it."""
    yield from _pair(synchronous=True)


@pytest.fixture
def async_pair() -> Iterator[Pair]:
    """Asynchronous replication: the primary acknowledges before the standby has it."""
    yield from _pair(synchronous=False)
