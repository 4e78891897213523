"""docker-compose.yml describes a deployment the code supports: two gateway replicas and a
projector on a Postgres primary and its streaming standby, sharing what must be shared.
(No Docker engine runs here; the file is checked against the commands and scripts it names,
and tests/ha/pair.py follows the same replication recipe against real servers.)"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from application.postgres_url import parse_postgres_url
from application.store_config import standby_env
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
    url = parse_postgres_url(environments[0]["SLUICE_DATABASE_URL"], writes=True)
    assert url.hosts == ("postgres:5432", "postgres-standby:5432")
    assert url.session_attrs == "read-write"
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


def test_the_standby_streams_from_the_primary_and_the_gateways_read_it() -> None:
    found = services()
    primary, standby = found["postgres"], found["postgres-standby"]
    assert primary["image"] == standby["image"]
    # The primary's set-up makes the role the standby copies and streams with, lets it
    # connect for replication, and waits for the standby by its application_name.
    init = script(primary, "/docker-entrypoint-initdb.d/")
    role = re.search(r"CREATE ROLE (\w+) WITH REPLICATION LOGIN", init)
    assert role, init
    assert f"host replication {role.group(1)} all" in init
    waited = re.search(r"synchronous_standby_names = '(\w+)'", init)
    assert waited, init
    # The standby: a copy by pg_basebackup -R from the primary, as that role and name,
    # then a hot standby with no synchronous standby of its own.
    start = script(standby, "/usr/local/bin/")
    assert standby["entrypoint"][-1].startswith("/usr/local/bin/")
    assert "pg_basebackup" in start and "--write-recovery-conf" in start
    assert f"host=postgres port=5432 user={role.group(1)}" in start
    assert f"application_name={waited.group(1)}" in start
    assert "-c synchronous_standby_names=''" in start
    assert primary["environment"]["REPLICATION_PASSWORD"] == standby["environment"]["PGPASSWORD"]
    assert standby["user"] == "postgres"
    # Seeding commits: it waits for the standby, or its commits would wait for it.
    assert "postgres-standby" in found["demo"]["depends_on"]
    # The gateways read the standby first, the primary if it is the only server left.
    env = found["gateway-a"]["environment"]
    read = parse_postgres_url(env["SLUICE_READ_DATABASE_URL"], writes=False)
    assert read.hosts == ("postgres-standby:5432", "postgres:5432")
    assert read.session_attrs == "prefer-standby"
    assert standby_env(env["SLUICE_READ_DATABASE_URL"], env["SLUICE_DATABASE_URL"], {})


def script(service: dict[str, Any], mounted_under: str) -> str:
    """The text of the script a service mounts under a folder; checked by bash -n."""
    volumes: list[str] = service["volumes"]
    for volume in volumes:
        source, _, target = volume.partition(":")
        if target.startswith(mounted_under):
            path = ROOT / source
            checked = subprocess.run(
                ["bash", "-n", str(path)], capture_output=True, text=True, check=False
            )
            assert checked.returncode == 0, checked.stderr
            return path.read_text()
    raise AssertionError(f"no script mounted under {mounted_under}")
