"""How Sluice is run: the image (no Docker engine runs here, so its Dockerfile is read and its
healthcheck run against a real server), `make run`'s port, and the README's other servers."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.served import free_port, serving

ROOT = Path(__file__).resolve().parents[2]
SLUICE = str(Path(sys.executable).parent / "sluice")


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile's instructions, continuation lines joined, comments left out."""
    text = re.sub(r"\\\n\s*", " ", (ROOT / "Dockerfile").read_text())
    lines = [line.strip() for line in text.splitlines()]
    pairs = [line.split(None, 1) for line in lines if line and not line.startswith("#")]
    return [(word.upper(), rest) for word, rest in pairs]


def healthcheck_code() -> str:
    """The Python the image's HEALTHCHECK runs."""
    (check,) = [rest for word, rest in instructions() if word == "HEALTHCHECK"]
    argv = json.loads(check[check.index("CMD") + 3 :])
    assert argv[:2] == ["python", "-c"]
    code: str = argv[2]
    ast.parse(code)
    return code


def test_the_image_runs_as_an_unprivileged_user_that_owns_only_the_var_folder() -> None:
    steps = instructions()
    users = [rest for word, rest in steps if word == "USER"]
    assert users and users[-1] not in {"root", "0", "0:0"}
    last_user = max(i for i, (word, _) in enumerate(steps) if word == "USER")
    # Everything after the switch runs as that user; installing happened before it.
    assert [word for word, _ in steps[last_user:]] == [
        "USER",
        "EXPOSE",
        "HEALTHCHECK",
        "ENTRYPOINT",
    ]
    (install,) = [rest for word, rest in steps if word == "RUN"]
    assert "useradd --system --uid 10001" in install
    assert f"chown {users[-1]}:{users[-1]} /app/var" in install


def test_the_image_healthcheck_passes_against_a_serving_gateway_and_fails_without_one(
    tmp_path: Path,
) -> None:
    code = healthcheck_code()
    assert "http://127.0.0.1:8000/health" in code  # `sluice serve`'s default port
    env = {**os.environ, "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'image.db'}"}
    with serving([SLUICE, "serve"], env) as base:
        against = code.replace("http://127.0.0.1:8000", base)
        healthy = subprocess.run([sys.executable, "-c", against], capture_output=True, check=False)
    nobody = code.replace("8000", str(free_port()))
    unhealthy = subprocess.run([sys.executable, "-c", nobody], capture_output=True, check=False)

    assert healthy.returncode == 0, healthy.stderr
    assert unhealthy.returncode != 0


def test_make_run_serves_on_the_port_it_is_given() -> None:
    def planned(*args: str) -> str:
        done = subprocess.run(
            ["make", "-n", "-C", str(ROOT), "run", *args],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        (line,) = [line for line in done.stdout.splitlines() if "sluice serve" in line]
        return line

    assert planned().endswith("--port 8000")
    assert planned("PORT=8001").endswith("--port 8001")


def test_the_readme_points_the_agent_at_no_server_on_sluices_own_port() -> None:
    readme = (ROOT / "README.md").read_text()
    model_urls = re.findall(r"SLUICE_LLM_BASE_URL=(\S+)", readme)

    assert model_urls
    assert not [url for url in model_urls if ":8000" in url]
