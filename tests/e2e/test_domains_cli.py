"""`sluice domains`, `--domain` and SLUICE_DOMAIN through the real CLI.

The bank and the shop are installed; a third domain (tests/domains/notes.py) is installed
for some tests by a distribution of their own on PYTHONPATH. A name that is no installed
domain is refused (exit 2) naming what was given and the installed domains, and nothing is
created or changed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gateway.interfaces.cli.app import app
from tests.domains import NOTES_ENTRIES, install

SLUICE = str(Path(sys.executable).parent / "sluice")
ROOT = Path(__file__).resolve().parents[2]
USAGE_ERROR = 2


def sluice(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, *args], env={**env, "COLUMNS": "200"}, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A store of this test's own, not there yet, and no setting inherited."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    return {**inherited, "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'store.db'}"}


@pytest.fixture
def with_notes(env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """The same, with the notes domain (and some broken entries) installed beside the bank."""
    installed = install(tmp_path / "site", NOTES_ENTRIES)
    return {**env, "PYTHONPATH": os.pathsep.join([str(installed), str(ROOT)])}


def store(env: dict[str, str]) -> Path:
    return Path(env["SLUICE_DATABASE_URL"].removeprefix("sqlite:///"))


def test_sluice_domains_lists_the_bank(env: dict[str, str]) -> None:
    done = sluice(env, "domains")

    assert (done.returncode, done.stdout, done.stderr) == (0, "bank\nshop\n", "")


def test_sluice_domains_lists_a_domain_installed_beside_the_bank(
    with_notes: dict[str, str],
) -> None:
    done = sluice(with_notes, "domains")

    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "bank",
        "misnamed",
        "missing",
        "not-a-domain",
        "notes",
        "shop",
    ]


@pytest.mark.parametrize(
    "args",
    [
        ("demo", "--domain", "bank"),
        ("--domain", "bank", "demo"),
    ],
)
def test_domain_bank_seeds_the_banks_demo(env: dict[str, str], args: tuple[str, ...]) -> None:
    done = sluice(env, *args)

    assert done.returncode == 0, done.stderr
    assert "opened alice, bob, carla" in done.stdout
    assert "sk-demo-alice" in done.stdout
    listed = sluice(env, "directory", "--domain", "bank")
    assert listed.stdout.startswith("You act on bank accounts")
    assert "- transfer [write]" in listed.stdout


def test_the_domain_option_wins_over_the_setting(env: dict[str, str]) -> None:
    done = sluice({**env, "SLUICE_DOMAIN": "garden"}, "demo", "--domain", "bank")

    assert done.returncode == 0, done.stderr
    shown = sluice({**env, "SLUICE_DOMAIN": "garden"}, "settings", "--domain", "bank")
    assert "SLUICE_DOMAIN=bank" in shown.stdout.splitlines()


@pytest.mark.parametrize(
    "args",
    [
        ("demo", "--domain", "garden"),
        ("--domain", "garden", "demo"),
        ("serve", "--domain", "garden", "--port", "1"),
        ("directory", "--domain", "garden"),
        ("principal", "list", "--domain", "garden"),
    ],
)
def test_an_unknown_domain_option_is_refused_and_changes_nothing(
    env: dict[str, str], args: tuple[str, ...]
) -> None:
    done = sluice(env, *args)

    assert done.returncode == USAGE_ERROR
    assert (
        done.stderr
        == "error: --domain garden: no domain 'garden' is installed (installed: bank, shop)\n"
    )
    assert done.stdout == ""
    assert not store(env).exists()


@pytest.mark.parametrize("command", ["demo", "serve", "directory", "settings"])
def test_an_unknown_domain_setting_is_refused_and_changes_nothing(
    env: dict[str, str], command: str
) -> None:
    done = sluice({**env, "SLUICE_DOMAIN": "garden"}, command)

    assert done.returncode == USAGE_ERROR
    assert done.stderr == (
        "error: SLUICE_DOMAIN='garden': no domain 'garden' is installed (installed: bank, shop)\n"
    )
    assert not store(env).exists()


def test_an_unknown_domain_leaves_a_store_as_it_was(env: dict[str, str]) -> None:
    assert sluice(env, "demo").returncode == 0
    before = store(env).read_bytes()

    done = sluice(env, "demo", "--domain", "garden")

    assert done.returncode == USAGE_ERROR
    assert store(env).read_bytes() == before


def test_another_domain_serves_its_own_directory_and_demo(with_notes: dict[str, str]) -> None:
    listed = sluice(with_notes, "directory", "--domain", "notes")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout == (
        "You keep notes through the use case below.\n"
        "- count_words [read] Count the words of a note.\n"
    )

    seeded = sluice({**with_notes, "SLUICE_DOMAIN": "notes"}, "demo")
    assert seeded.returncode == 0, seeded.stderr
    assert "registered admin, nora" in seeded.stdout
    counted = sluice(with_notes, "call", "count_words", "note=three small words", "--as", "nora",
                     "--domain", "notes")  # fmt: skip
    assert counted.returncode == 0, counted.stderr
    assert '"result": 3' in counted.stdout


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("not-a-domain", "tests.domains.notes:NOT_A_DOMAIN is not a Domain"),
        ("missing", "could not be loaded: No module named 'tests.domains.absent'"),
    ],
)
def test_an_installed_name_that_is_no_domain_is_refused(
    with_notes: dict[str, str], name: str, reason: str
) -> None:
    done = sluice(with_notes, "demo", "--domain", name)

    assert done.returncode == USAGE_ERROR
    assert done.stderr.startswith(f"error: --domain {name}: ")
    assert reason in done.stderr
    assert not store(with_notes).exists()


def test_one_invocations_domain_is_not_the_next_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In one process, as a test runner or an embedding program invokes the app again and again.
    monkeypatch.syspath_prepend(str(install(tmp_path, NOTES_ENTRIES)))
    runner = CliRunner()

    def domain_of(*args: str) -> str:
        shown = runner.invoke(app, [*args], env={"SLUICE_DOMAIN": None})
        assert shown.exit_code == 0, shown.stderr
        return next(line for line in shown.stdout.splitlines() if line.startswith("SLUICE_DOMAIN="))

    assert domain_of("settings", "--domain", "notes") == "SLUICE_DOMAIN=notes"
    assert domain_of("settings") == "SLUICE_DOMAIN=bank"
    assert domain_of("--domain", "notes", "settings") == "SLUICE_DOMAIN=notes"
    assert domain_of("settings") == "SLUICE_DOMAIN=bank"
    # The command's own option wins over one given before it.
    assert domain_of("--domain", "bank", "settings", "--domain", "notes") == "SLUICE_DOMAIN=notes"
