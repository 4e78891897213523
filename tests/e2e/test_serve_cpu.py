"""`sluice serve --cpu N`: the process, every thread it starts and its sandbox workers run
on CPU N only; a CPU it may not use is a usage error that serves nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.served import served_process

SLUICE = str(Path(sys.executable).parent / "sluice")
ALICE = {"Authorization": "Bearer sk-demo-alice"}
CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []

pytestmark = pytest.mark.skipif(len(CPUS) < 2, reason="needs a Linux machine with 2 CPUs")


def cpus_of_every_thread(pid: int) -> dict[int, set[int]]:
    """Each thread of process `pid` and of its children, with the CPUs it may run on."""
    found: dict[int, set[int]] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            found[int(tid)] = os.sched_getaffinity(int(tid))
            children = Path(f"/proc/{pid}/task/{tid}/children").read_text().split()
        except (FileNotFoundError, ProcessLookupError):
            continue  # ended meanwhile
        for child in children:
            found |= cpus_of_every_thread(int(child))
    return found


def test_a_served_process_its_threads_and_its_sandbox_workers_stay_on_one_cpu(
    tmp_path: Path,
) -> None:
    cpu = CPUS[-1]
    env = {**os.environ, "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'cpu.db'}"}
    with served_process([SLUICE, "serve", "--demo", "--cpu", str(cpu)], env) as (base, server):
        # A program: the sandbox's workers and its runtime's threads have started.
        program = {"language": "python", "source": 'get_balance(account="alice")'}
        done = httpx.post(f"{base}/v1/programs", headers=ALICE, json=program, timeout=30)
        assert done.status_code == 201 and done.json()["status"] == "committed", done.text
        threads = cpus_of_every_thread(server.pid)

    assert len(threads) > 3  # the loop, the workers, the projector, a sandbox worker...
    assert {tid: {cpu} for tid in threads} == threads


def test_unbound_serving_keeps_every_cpu(tmp_path: Path) -> None:
    env = {**os.environ, "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'free.db'}"}
    with served_process([SLUICE, "serve"], env) as (_, server):
        threads = cpus_of_every_thread(server.pid)
    assert set(CPUS) in threads.values()


@pytest.mark.parametrize("cpu", ["-1", "4096"])
def test_a_cpu_the_process_may_not_use_is_a_usage_error(tmp_path: Path, cpu: str) -> None:
    database = tmp_path / "never.db"
    env = {**os.environ, "SLUICE_DATABASE_URL": f"sqlite:///{database}"}
    done = subprocess.run(
        [SLUICE, "serve", "--cpu", cpu, "--port", "9"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"--cpu {cpu}: this process may only run on CPU" in done.stderr
    assert "Serving" not in done.stdout
    assert not database.exists()  # nothing opened, nothing served


def test_the_cpu_may_come_from_the_environment(tmp_path: Path) -> None:
    env = {**os.environ, "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'env.db'}"}
    env["SLUICE_SERVE_CPU"] = str(CPUS[0])
    with served_process([SLUICE, "serve"], env) as (_, server):
        threads = cpus_of_every_thread(server.pid)
    assert all(cpus == {CPUS[0]} for cpus in threads.values()), threads
