"""SLUICE_DATABASE_URL as a new user writes it: the standard libpq forms, a multi-host URL
included, and a clear one-line refusal (never a traceback) for one that cannot be used."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.served import free_port

SLUICE = str(Path(sys.executable).parent / "sluice")


def demo(env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, "demo"],
        env={**os.environ, **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def unreachable(user: str) -> tuple[str, str]:
    """A multi-host URL of two ports nobody listens on, and its servers as `h:p,h:p`."""
    servers = f"127.0.0.1:{free_port()},127.0.0.1:{free_port()}"
    return f"postgresql://{user}@{servers}/postgres?target_session_attrs=read-write", servers


def test_a_multi_host_url_is_followed_not_split_by_hand(tmp_path: Path) -> None:
    # The URL a client uses to follow the primary across a failover; here nothing listens
    # on either port, so the store cannot be reached: one line naming both servers.
    url, servers = unreachable("postgres")

    done = demo({"SLUICE_DATABASE_URL": url}, tmp_path)

    assert "Traceback" not in done.stderr, done.stderr
    assert "ValueError" not in done.stderr
    assert done.returncode == 1, done.stderr
    said = " ".join(done.stderr.split())  # as one line, however the terminal wraps it
    assert said.startswith("error: the event store failed: cannot connect to PostgreSQL at ")
    assert f"{servers}: connection refused" in said


@pytest.mark.parametrize(
    ("variable", "url", "reason"),
    [
        (
            "SLUICE_DATABASE_URL",
            "postgresql://postgres@127.0.0.1:5433,127.0.0.1:54x4/postgres",
            "port '54x4' of host 2 is not a number from 1 to 65535",
        ),
        (
            "SLUICE_DATABASE_URL",
            "postgresql://postgres@127.0.0.1:5433,127.0.0.1:5434/postgres",
            "with several hosts, add target_session_attrs=read-write",
        ),
        (
            "SLUICE_DATABASE_URL",
            "postgresql://postgres@h1,h2/postgres?target_session_attrs=read_write",
            "target_session_attrs 'read_write' is not one of",
        ),
        (
            "SLUICE_DATABASE_URL",
            "postgresql://postgres@h1,h2/postgres?target_session_attrs=standby",
            "writes need a server that accepts them",
        ),
        (
            "SLUICE_READ_DATABASE_URL",
            "postgresql://postgres@127.0.0.1:0/postgres",
            "port '0' of host 1 is not a number from 1 to 65535",
        ),
        (
            "SLUICE_READ_DATABASE_URL",
            "sqlite:///var/replica.db",
            "unsupported scheme 'sqlite'",
        ),
    ],
)
def test_a_url_that_cannot_be_used_is_a_clear_usage_error(
    tmp_path: Path, variable: str, url: str, reason: str
) -> None:
    env = {variable: url}
    if variable == "SLUICE_READ_DATABASE_URL":
        env["SLUICE_DATABASE_URL"] = "postgresql://postgres@127.0.0.1:5432/postgres"

    done = demo(env, tmp_path)

    said = " ".join(done.stderr.split())
    assert done.returncode == 2, said
    assert "Traceback" not in said
    assert said.startswith(f"error: {variable} ") and reason in said, said


def test_a_read_url_needs_a_postgres_primary(tmp_path: Path) -> None:
    (tmp_path / "var").mkdir()
    env = {
        "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'var' / 'sluice.db'}",
        "SLUICE_READ_DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/postgres",
    }

    done = demo(env, tmp_path)

    said = " ".join(done.stderr.split())
    assert done.returncode == 2, said
    assert said.startswith("error: SLUICE_READ_DATABASE_URL ")
    assert "a hot standby of the PostgreSQL server SLUICE_DATABASE_URL names" in said


def test_a_password_in_a_multi_host_url_is_never_shown(tmp_path: Path) -> None:
    url, _ = unreachable("sluice:s3cret")

    done = demo({"SLUICE_DATABASE_URL": url}, tmp_path)

    assert done.returncode == 1
    assert "s3cret" not in done.stderr + done.stdout
