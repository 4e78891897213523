"""The e2e tests' shared fixture: the demo data, seeded once per worker (demo_stores.py)."""

from __future__ import annotations

import pytest

from tests.e2e.demo_stores import DemoStores


@pytest.fixture(scope="session")
def demo_stores(tmp_path_factory: pytest.TempPathFactory) -> DemoStores:
    return DemoStores(tmp_path_factory.mktemp("demo"))
