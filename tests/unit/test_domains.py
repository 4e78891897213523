"""Domains: the bank is one, installed by its entry point; Sluice serves the one it is
handed, else SLUICE_DOMAIN's; a name that is not an installed Domain is refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from application import domains, principals
from application.bank import BANK_USE_CASES, DIRECTORY_HEADER
from application.bank.domain import BANK
from application.settings_error import SettingsError
from gateway.bootstrap import Sluice
from gateway.core.catalog import UnknownUseCaseError
from gateway.demo import seed
from gateway.settings import load_settings
from tests.domains import NOTES_ENTRIES, install
from tests.domains.notes import NOTES


@pytest.fixture
def notes_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(install(tmp_path, NOTES_ENTRIES)))


def test_the_bank_is_installed_and_is_the_default() -> None:
    assert "bank" in domains.installed()
    assert domains.DEFAULT == "bank"
    assert domains.load("bank") is BANK
    assert BANK.use_cases == BANK_USE_CASES
    assert BANK.directory_header == DIRECTORY_HEADER


def test_an_unknown_domain_is_refused_naming_it_and_the_installed_ones() -> None:
    with pytest.raises(SettingsError) as refused:
        domains.load("garden")

    assert str(refused.value) == "no domain 'garden' is installed (installed: bank, shop)"


@pytest.mark.usefixtures("notes_installed")
def test_a_domain_installed_beside_the_bank_is_listed_and_loaded() -> None:
    assert domains.installed() == ["bank", "misnamed", "missing", "not-a-domain", "notes", "shop"]
    assert domains.load("notes") is NOTES


@pytest.mark.usefixtures("notes_installed")
@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("not-a-domain", "domain not-a-domain: tests.domains.notes:NOT_A_DOMAIN is not a Domain"),
        ("missing", "domain missing (tests.domains.absent:NOTHING) could not be loaded: No module"),
        ("misnamed", "domain misnamed: application.bank.domain:BANK is named 'bank'"),
    ],
)
def test_an_entry_point_that_is_not_a_domain_of_its_name_is_refused(name: str, reason: str) -> None:
    with pytest.raises(SettingsError) as refused:
        domains.load(name)

    assert str(refused.value).startswith(reason)


def test_sluice_serves_the_bank_by_default() -> None:
    with Sluice("memory://", settings=load_settings({})) as sluice:
        assert sluice.domain is BANK
        assert sluice.catalog.names == tuple(u.name for u in BANK_USE_CASES)


def test_sluice_serves_the_domain_it_is_handed_over_its_setting() -> None:
    settings = load_settings({"SLUICE_DOMAIN": "bank"})

    with Sluice("memory://", settings=settings, domain=NOTES) as sluice:
        # The directory, the catalog and the demo are the notes', the bank's are not there.
        assert sluice.catalog.directory() == (
            "You keep notes through the use case below.\n"
            "- count_words [read] Count the words of a note.\n"
        )
        with pytest.raises(UnknownUseCaseError):
            sluice.catalog.get("transfer")
        made, registered = seed(sluice.gateway, sluice.domain.demo)
        assert (made, registered) == ([], ["admin", "nora"])
        nora = sluice.gateway.authenticate(principals.demo_key("nora"), "test")
        counted = sluice.gateway.call(nora, "count_words", {"note": "three small words"})
        assert (counted.status, counted.result) == ("committed", 3)


def test_a_setting_naming_no_installed_domain_is_refused_by_name() -> None:
    with pytest.raises(SettingsError) as refused:
        load_settings({"SLUICE_DOMAIN": "garden"})

    assert str(refused.value) == (
        "SLUICE_DOMAIN='garden': no domain 'garden' is installed (installed: bank, shop)"
    )


def test_a_chosen_domain_wins_over_the_setting() -> None:
    assert load_settings({"SLUICE_DOMAIN": "garden"}, domain="bank").domain == "bank"
    assert load_settings({}).domain == "bank"
