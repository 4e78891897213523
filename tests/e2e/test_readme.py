"""The README is the front door: its tour runs as written, from its own text, against a
served demo (so it cannot drift from the code), in a shell where `sluice` is not on PATH
until the tour puts it there; its first screen says what Sluice is and what it needs; its
contents, glossary and reference links hold; `make run` runs on Postgres as it says."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.served import free_port, serving
from tests.stores import empty_store

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
SLUICE = str(Path(sys.executable).parent / "sluice")
TOUR = "## A five-minute tour"
# A reference page the README links to that another change brings.
LANDS_SEPARATELY = {"docs/high-availability.md"}


def section(title: str) -> str:
    start = README.index(title + "\n")
    end = README.find("\n## ", start + len(title))
    return README[start : end if end != -1 else len(README)]


def shell_blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", text, flags=re.S)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    """A served demo, as `make run` serves it, on a store of its own."""
    folder = tmp_path_factory.mktemp("readme")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    env["SLUICE_DATABASE_URL"] = f"sqlite:///{folder / 'sluice.db'}"
    with serving([SLUICE, "serve", "--demo"], env) as base:
        yield base, env


def test_the_tour_runs_as_written_against_a_served_demo(
    demo: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    if shutil.which("jq") is None or shutil.which("curl") is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true and the README's tour needs curl and jq")
        pytest.skip("the README's tour needs curl and jq")
    base, env = demo
    start, tour = shell_blocks(section(TOUR))
    assert start.split("#")[0].strip() == "make run"
    # A folder like the project's: its .venv, and nothing of `sluice` on PATH.
    (tmp_path / ".venv").symlink_to(Path(SLUICE).parent.parent)
    bin_dir = str(Path(SLUICE).parent)
    path = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != bin_dir)
    shell_env = {k: v for k, v in env.items() if k != "VIRTUAL_ENV"}
    shell_env |= {"PATH": path, "PORT": base.rsplit(":", 1)[1], "COLUMNS": "160"}
    assert shutil.which("sluice", path=path) is None

    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", tour],
        cwd=tmp_path, env=shell_env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip

    said = " ".join(done.stdout.split())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "command not found" not in done.stderr
    assert "- transfer [write]" in said  # 1. the directory
    assert 'Done: a read; nothing to write. Result: "100.00"' in said  # 2. a read
    assert "proposal " in said  # 3. the agent's proposal, its id printed
    assert "alice pays bob 10.00 EUR" in said and "alice's agent" in said  # 4. the inbox
    assert "Committed: 2 events appended." in said  # 5. confirmed
    assert '{"status":"pending","moves":[{"payer":"alice","payee":"carla"' in said  # 6. preview
    assert '{"status":"committed","changed":2}' in said  # and confirmed by its hash
    assert '{"account":"alice","owner":"Alice","balance":"85.00"' in said  # 7. balances
    assert "concert" in said  # bob's account, traced to the run that paid him


def test_the_first_screen_says_what_sluice_is_what_it_needs_and_the_two_commands() -> None:
    first_screen = "\n".join(README.splitlines()[:40])

    assert "Sluice lets an AI agent act on a real business system" in first_screen
    assert "You need **Python 3.11+** and **make**" in first_screen
    assert "make run" in first_screen and "make test" in first_screen
    assert "source .venv/bin/activate" in first_screen
    for jargon in ("xdist", "CI=true", "SLUICE_TEST_DATABASE_URL"):
        assert jargon not in first_screen


def test_every_sluice_line_comes_after_the_cli_is_put_on_path() -> None:
    activate = README.index("source .venv/bin/activate")
    for block in shell_blocks(README):
        for line in block.splitlines():
            if line.lstrip().startswith("sluice "):
                assert README.index(line) > activate, line


def test_the_examples_hold_no_placeholder_to_replace_by_hand() -> None:
    for block in shell_blocks(README):
        assert "9f2c" not in block and "/ID/" not in block and "localhost:8000" not in block


def test_the_contents_name_every_section_and_the_glossary_and_postgres_are_there() -> None:
    headings = re.findall(r"^## (.+)$", README, flags=re.M)
    listed = re.findall(r"^- \[(.+?)\]\(#(.+?)\)$", section("## Contents"), flags=re.M)

    assert [title for title, _ in listed] == [h for h in headings if h != "Contents"]
    for title, anchor in listed:
        assert anchor == re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")
    glossary = section("## Words used here")
    for word in ("use case", "directory", "sheet", "proposal", "run", "principal", "caps"):
        assert f"\n| {word} |" in glossary
    assert "docker compose up" in section("## Run it on Postgres")
    assert "SLUICE_DATABASE_URL=postgresql://" in section("## Run it on Postgres")


def test_the_reference_lives_in_docs_and_every_link_is_there() -> None:
    links = set(re.findall(r"\]\(((?:docs/)?[\w./-]+\.(?:md|png))\)", README))

    assert {f"docs/{n}.md" for n in ("api", "agent", "mcp", "operating", "bounds")} <= links
    for link in links - LANDS_SEPARATELY:
        assert (ROOT / link).is_file(), link
    for page in (ROOT / "docs").glob("*.md"):
        for link in re.findall(r"\]\(([\w./-]+\.(?:md|png))\)", page.read_text()):
            assert (page.parent / link).resolve().is_file() or link.endswith(
                tuple(LANDS_SEPARATELY)
            ), f"{page.name}: {link}"
    assert len(README.splitlines()) < 300


@pytest.mark.postgres
def test_make_run_serves_on_postgres_as_the_readme_says(tmp_path: Path) -> None:
    assert "SLUICE_DATABASE_URL=postgresql://sluice:sluice@127.0.0.1:5433/sluice make run" in (
        README
    )
    port = free_port()
    with empty_store("postgres", tmp_path) as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
        env |= {"SLUICE_DATABASE_URL": url, "PORT": str(port)}
        log = tmp_path / "make-run.log"
        with log.open("w") as out:
            process = subprocess.Popen(
                ["make", "--no-print-directory", "run"], cwd=ROOT, env=env, stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and process.poll() is None:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.2)
            said = log.read_text()
            assert process.poll() is None, said
            assert f"Serving {url.split('?')[0].split('@')[0]}" in said or "Serving" in said
            assert "source .venv/bin/activate    # puts `sluice` on your PATH" in said
        finally:
            os.killpg(process.pid, 15)
            process.wait(timeout=30)
