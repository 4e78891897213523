"""The guide's library audited as docs/domains.md says: its books followed by key through the
real `sluice` command, with the library package copied out of the page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.domains.guide import example_files, guide_text, write_package
from tests.domains.test_guide import environment, sluice


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    library = write_package(tmp_path / "sluice-library", example_files(guide_text()))
    environment_ = environment(library, tmp_path / "store.db")
    assert sluice(environment_, "--domain", "library", "demo").returncode == 0
    lent = sluice(
        environment_, "call", "lend_book", "book=dune", "reader=alice", "--as", "alice",
        "--domain", "library",
    )  # fmt: skip
    assert lent.returncode == 0, lent.stdout + lent.stderr
    return environment_


def test_a_book_is_audited_by_its_key_as_the_guide_says(env: dict[str, str]) -> None:
    library = ("--domain", "library")
    timeline = sluice(env, *library, "audit", "record", "book", "dune", "--json")
    lent = json.loads(timeline.stdout)[-1]
    state = sluice(env, *library, "audit", "as-of", "dune", "--at", str(lent["position"]))
    events = sluice(env, *library, "events")
    missing = sluice(env, *library, "audit", "record", "book", "nope")

    assert "sluice --domain library audit record book dune" in guide_text()
    assert [(e["type"], e["account"]) for e in json.loads(timeline.stdout)] == [
        ("Book.Added", "dune"),
        ("Book.Lent", "dune"),
    ]
    assert (lent["data"], lent["run"]["principal"]) == ({"reader": "alice"}, "alice")
    assert (
        state.stdout.split()
        == (
            f"book dune at {lent['position']}: title Dune, lent_to alice, version 2 "
            f"(last event at position {lent['position']})"
        ).split()
    )
    assert {"dune"} == {
        json.loads(line)["account"]
        for line in events.stdout.splitlines()
        if json.loads(line)["type"].startswith("Book.") and "dune" in line
    }
    assert (missing.returncode, missing.stderr.strip()) == (1, "error: no book nope")
