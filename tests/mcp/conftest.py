"""Each MCP test runs against both transports: `sluice mcp` on stdio, and /mcp on a served
gateway. Both hold the demo data, in a SQLite file of their own. The `trusted_*` targets
are the same, run by an operator who declared alice's MCP client trusted."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mcp.support import SLUICE, TRUSTS_ALICE, Target, store_env
from tests.served import serving
from tests.stores import empty_store


def _seeded(path: Path) -> dict[str, str]:
    # `sluice mcp` links to the console a `sluice serve` on the same store answers.
    env = store_env(f"sqlite:///{path}") | {"SLUICE_CONSOLE_URL": "http://127.0.0.1:8000/"}
    subprocess.run([SLUICE, "demo"], env=env, capture_output=True, text=True, check=True)
    return env


@pytest.fixture(scope="module")
def stdio_target(tmp_path_factory: pytest.TempPathFactory) -> Target:
    return Target("stdio", _seeded(tmp_path_factory.mktemp("mcp") / "stdio.db"))


@pytest.fixture(scope="module")
def http_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    env = store_env(f"sqlite:///{tmp_path_factory.mktemp('mcp') / 'http.db'}")
    with serving([SLUICE, "serve", "--demo"], env) as base:
        yield Target("http", env, base)


@pytest.fixture(scope="module")
def postgres_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    """A served gateway on the Postgres event store, in a schema of its own."""
    with empty_store("postgres", tmp_path_factory.mktemp("mcp")) as url:
        env = store_env(url)
        with serving([SLUICE, "serve", "--demo"], env) as base:
            yield Target("http", env, base)


@pytest.fixture(params=["stdio", "http"])
def target(request: pytest.FixtureRequest) -> Target:
    chosen: Target = request.getfixturevalue(f"{request.param}_target")
    return chosen


@pytest.fixture(params=["stdio", "http", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_store(request: pytest.FixtureRequest) -> Target:
    """`target`, and a served gateway on Postgres too: for the paths that commit."""
    chosen: Target = request.getfixturevalue(f"{request.param}_target")
    return chosen


@pytest.fixture(scope="module")
def trusted_stdio_target(tmp_path_factory: pytest.TempPathFactory) -> Target:
    path = tmp_path_factory.mktemp("mcp") / "trusted-stdio.db"
    return Target("stdio", _seeded(path) | TRUSTS_ALICE)


@pytest.fixture(scope="module")
def trusted_http_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    path = tmp_path_factory.mktemp("mcp") / "trusted-http.db"
    env = store_env(f"sqlite:///{path}") | TRUSTS_ALICE
    with serving([SLUICE, "serve", "--demo"], env) as base:
        yield Target("http", env, base)


@pytest.fixture(scope="module")
def trusted_postgres_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    with empty_store("postgres", tmp_path_factory.mktemp("mcp")) as url:
        env = store_env(url) | TRUSTS_ALICE
        with serving([SLUICE, "serve", "--demo"], env) as base:
            yield Target("http", env, base)


@pytest.fixture(params=["stdio", "http"])
def trusted(request: pytest.FixtureRequest) -> Target:
    """`target`, where the operator declared alice's MCP client trusted."""
    chosen: Target = request.getfixturevalue(f"trusted_{request.param}_target")
    return chosen


@pytest.fixture(params=["stdio", "http", pytest.param("postgres", marks=pytest.mark.postgres)])
def trusted_store(request: pytest.FixtureRequest) -> Target:
    """`any_store`, where the operator declared alice's MCP client trusted."""
    chosen: Target = request.getfixturevalue(f"trusted_{request.param}_target")
    return chosen
