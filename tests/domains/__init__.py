"""Domains of the tests, and a way to install one beside the bank for a test alone."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

# A distribution of the tests' own: its entry points in the group Sluice reads.
DISTRIBUTION = "sluice_test_domains-0.dist-info"


def install(folder: Path, entries: Mapping[str, str]) -> Path:
    """Make `folder` hold a distribution whose `sluice.domains` entry points are `entries`
    (name: "module:attribute"); on the path (sys.path, PYTHONPATH), they are installed."""
    info = folder / DISTRIBUTION
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: sluice-test-domains\nVersion: 0\n", encoding="utf-8"
    )
    lines = [f"{name} = {target}" for name, target in entries.items()]
    (info / "entry_points.txt").write_text(
        "[sluice.domains]\n" + "\n".join(lines) + "\n", encoding="utf-8"
    )
    return folder


NOTES_ENTRIES = {
    "notes": "tests.domains.notes:NOTES",
    "not-a-domain": "tests.domains.notes:NOT_A_DOMAIN",
    "missing": "tests.domains.absent:NOTHING",
    "misnamed": "application.bank.domain:BANK",
}
