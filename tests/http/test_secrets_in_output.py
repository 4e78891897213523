"""A password in the database URL, or an API key in a request, is never printed nor logged:
not at start, not at DEBUG, not when the store cannot be reached, not in a refusal.

Real processes on a real Postgres (trust authentication: the password is carried, not
checked), their stdout and stderr read whole."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.served import free_port, served_process
from tests.stores import postgres_url

pytestmark = pytest.mark.postgres

SLUICE = str(Path(sys.executable).parent / "sluice")
PASSWORD = "Hunter2-s3cret"


def with_password(url: str, password: str = PASSWORD) -> str:
    parts = urlsplit(url)
    user = parts.username or "postgres"
    netloc = f"{user}:{password}@{parts.hostname}:{parts.port or 5432}"
    return parts._replace(netloc=netloc).geturl()


def environment(url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    return {**env, "SLUICE_DATABASE_URL": url, **extra}


def run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60,
        check=False,
    )  # fmt: skip


@pytest.mark.parametrize("log_format", ["plain", "json"])
def test_a_served_gateway_never_prints_nor_logs_the_database_password_or_a_key(
    schema: str, tmp_path: Path, log_format: str
) -> None:
    url = with_password(postgres_url(schema))
    log = tmp_path / "stderr.log"
    env = environment(url, SLUICE_LOG_FORMAT=log_format)
    argv = [SLUICE, "serve", "--demo", "--log-level", "debug"]
    with served_process(argv, env, errors=log) as (base, process):
        issued = run([SLUICE, "principal", "add", "dora", "--role", "customer"], env)
        assert issued.returncode == 0, issued.stderr
        key = issued.stdout.strip().split()[-1]
        assert key.startswith("sk-")
        # A known key, a bad one, a key in the query.
        for headers in ({"Authorization": f"Bearer {key}"}, {"Authorization": "Bearer sk-nope12"}):
            httpx.get(f"{base}/v1/accounts", headers=headers, timeout=30)
        httpx.get(f"{base}/v1/accounts", params={"api_key": key}, timeout=30)
        assert process.pid
    said = log.read_text()

    assert "sluice.access" in said  # the log did say things at DEBUG
    assert PASSWORD not in said
    assert key not in said and "sk-nope12" not in said


def test_the_lines_printed_at_start_show_the_url_without_its_password(
    schema: str, tmp_path: Path
) -> None:
    url = with_password(postgres_url(schema))
    env = environment(url)
    demo = run([SLUICE, "demo"], env)
    assert demo.returncode == 0, demo.stderr
    port = free_port()
    out = tmp_path / "out.log"
    with out.open("w") as sink:
        server = subprocess.Popen(
            [SLUICE, "serve", "--port", str(port)], env=env, stdout=sink, stderr=sink
        )
        try:
            assert eventually_up(f"http://127.0.0.1:{port}/livez"), out.read_text()
        finally:
            server.terminate()
            server.wait(timeout=30)
    started = out.read_text()

    assert PASSWORD not in demo.stdout + demo.stderr + started
    hidden = f"postgres:***@{urlsplit(url).hostname}"
    assert hidden in demo.stdout
    assert f"Serving postgresql://{hidden}" in started


def eventually_up(url: str, seconds: float = 30) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return True
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    return False


def test_a_store_that_cannot_be_reached_is_named_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql://postgres:{PASSWORD}@127.0.0.1:{free_port()}/nowhere"
    env = environment(url, POSTGRES_CONNECT_TIMEOUT="2")
    for argv in ([SLUICE, "serve", "--port", str(free_port())], [SLUICE, "demo"]):
        done = run(argv, env)
        assert done.returncode != 0
        said = done.stdout + done.stderr
        assert PASSWORD not in said, said
        assert said.strip(), "it said nothing"


def test_a_refused_database_url_is_quoted_without_its_password() -> None:
    env = environment(f"postgresql://postgres:{PASSWORD}@127.0.0.1:5432/")
    done = run([SLUICE, "demo"], env)
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert (
        "'postgresql://postgres:***@127.0.0.1:5432/': a PostgreSQL URL needs a database name"
        in said
    )
    assert PASSWORD not in done.stdout + done.stderr
