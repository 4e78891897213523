"""docker-compose.yml describes a deployment the code supports: two gateway replicas and a
projector on one Postgres database, sharing what must be shared. (No Docker engine runs
here; the file is checked against the commands it names.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from gateway.interfaces.mcp.state_keys import parse_keys

ROOT = Path(__file__).resolve().parents[2]
SLUICE = str(Path(sys.executable).parent / "sluice")


def services() -> dict[str, Any]:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    found: dict[str, Any] = compose["services"]
    return found


def test_two_gateways_and_a_projector_share_one_database_and_the_mcp_keys() -> None:
    ours = {name: s for name, s in services().items() if s.get("build") == "."}

    gateways = [s for s in ours.values() if s["command"][0] == "serve"]
    projectors = [s for s in ours.values() if s["command"][0] == "project"]
    assert len(gateways) == 2
    assert all("--no-projector" in s["command"] for s in gateways)
    assert len(projectors) == 1
    environments = [s["environment"] for s in ours.values()]
    assert all(env == environments[0] for env in environments)
    url = environments[0]["SLUICE_DATABASE_URL"]
    assert url.startswith("postgresql://") and "@postgres:5432/" in url
    default_key = environments[0]["SLUICE_MCP_STATE_KEYS"].split(":-", 1)[1].rstrip("}")
    assert len(parse_keys(default_key)) == 1
    assert {p for s in gateways for p in s["ports"]} == {
        "127.0.0.1:8000:8000",
        "127.0.0.1:8001:8000",
    }


def test_every_command_the_file_names_exists_with_its_options() -> None:
    for name, service in services().items():
        if service.get("build") != ".":
            continue
        command = service["command"]
        shown = subprocess.run(
            [SLUICE, command[0], "--help"], capture_output=True, text=True, check=False
        )
        assert shown.returncode == 0, f"{name}: {shown.stderr}"
        for option in (word for word in command[1:] if word.startswith("--")):
            assert option in shown.stdout, f"{name}: sluice {command[0]} has no {option}"
