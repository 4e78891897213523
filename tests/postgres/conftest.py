"""The server check: skip the Postgres tests with one notice, but fail them in CI."""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator

import pytest

from tests.postgres import support

NO_SERVER = "PostgreSQL tests skipped"


@pytest.fixture(autouse=True)
def _require_postgres(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("postgres") is None:
        return
    problem = support.server_problem()
    if problem is None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and PostgreSQL is required: {problem}", pytrace=False)
    pytest.skip(f"{NO_SERVER}: {problem}; set SLUICE_TEST_DATABASE_URL")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    # pytest reports a skip at each test's own line, which would print one
    # line per test; one shared location folds them into a single notice.
    longrepr = report.longrepr
    if report.skipped and isinstance(longrepr, tuple) and NO_SERVER in longrepr[2]:
        report.longrepr = ("tests/postgres/conftest.py", 1, longrepr[2])
    return report


@pytest.fixture
def schema() -> Iterator[str]:
    """A fresh schema, dropped after the test."""
    name = support.create_schema()
    yield name
    support.drop_schema(name)
