"""docs/domains.md followed to the letter: its example domain, copied out of the page,
installed by its own entry point and run through the real `sluice` command.

The guide's files (tests/domains/guide.py says which blocks they are) make a package in a
folder of the test's own; that folder on PYTHONPATH installs the domain `library`. Then the
commands the guide gives: `sluice domains`, `sluice --domain library demo`, `sluice call`,
`sluice serve --domain library --demo` answered over HTTP with the demo keys, a program
previewed and confirmed by its hash, and the domain's own refusal. Last, the definition
rules the guide lists: each broken in the guide's own code stops the domain with the
message the guide quotes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from itertools import count
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.domains.guide import ROOT, example_files, guide_text, write_package
from tests.served import serving

SLUICE = str(Path(sys.executable).parent / "sluice")
USAGE_ERROR = 2
FILES = (
    "library/__init__.py",
    "library/books.py",
    "library/results.py",
    "library/use_cases.py",
    "library/demo.py",
    "library/domain.py",
    "pyproject.toml",
)
LENT_TWICE = "lend_book: book dune is already lent to alice"
PROGRAM = 'lend_book(book="hobbit", reader="bob")\nget_book(book="hobbit")["lent_to"]\n'
_books = count(1)


def sluice(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SLUICE, *args], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def environment(package: Path, store: Path) -> dict[str, str]:
    """No setting inherited; the package's folder on the path, then Sluice's own."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")}
    return {
        **inherited,
        "COLUMNS": "250",
        "PYTHONPATH": os.pathsep.join([str(package), str(ROOT)]),
        "SLUICE_DATABASE_URL": f"sqlite:///{store}",
    }


def in_guide(text: str) -> bool:
    return text in guide_text()


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The guide's package, written and installed in a folder of its own."""
    return write_package(tmp_path_factory.mktemp("sluice-library"), example_files(guide_text()))


@pytest.fixture
def env(library: Path, tmp_path: Path) -> dict[str, str]:
    return environment(library, tmp_path / "store.db")


@pytest.fixture(scope="module")
def served(
    library: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, dict[str, str]]]:
    """The base URL of `sluice serve --domain library --demo`, and its environment."""
    env = environment(library, tmp_path_factory.mktemp("served") / "store.db")
    with serving([SLUICE, "serve", "--domain", "library", "--demo"], env) as base:
        yield base, env


@pytest.fixture
def base(served: tuple[str, dict[str, str]]) -> str:
    return served[0]


def auth(who: str) -> dict[str, str]:
    return {"Authorization": f"Bearer sk-demo-{who}"}


def call(base: str, who: str, name: str, arguments: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{base}/v1/use-cases/{name}", headers=auth(who), json=arguments, timeout=30)


def holder(base: str, book: str) -> str | None:
    read = call(base, "bob", "get_book", {"book": book})
    assert read.status_code == 200, read.text
    lent_to: str | None = read.json()["result"]["lent_to"]
    return lent_to


def new_book(base: str) -> str:
    """A book of the test's own, added by staff as the guide's add_book adds one."""
    book = f"book-{next(_books)}"
    added = call(base, "teller", "add_book", {"book": book, "title": "A book of the tests"})
    assert added.status_code == 200, added.text
    return book


def domain_events_after(base: str, after: int) -> list[tuple[str, str]]:
    """(key, type) of the events after a position, but the runs' own records."""
    page = httpx.get(
        f"{base}/v1/events", params={"after": after}, headers=auth("admin"), timeout=30
    )
    assert page.status_code == 200, page.text
    return [(e["account"], e["type"]) for e in page.json() if not e["type"].startswith("Run.")]


def last_position(base: str) -> int:
    after = 0
    while True:
        page = httpx.get(
            f"{base}/v1/events",
            params={"after": after, "limit": 1000},
            headers=auth("admin"),
            timeout=30,
        )
        assert page.status_code == 200, page.text
        if not page.json():
            return after
        after = page.json()[-1]["position"]


# The guide's files and its entry point.


def test_the_guide_shows_every_file_of_its_example() -> None:
    files = example_files(guide_text())

    assert tuple(files) == FILES


def test_sluice_domains_lists_the_guides_domain(env: dict[str, str]) -> None:
    listed = sluice(env, "domains")

    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.split() == ["bank", "library", "shop"]
    assert in_guide("```text\n" + listed.stdout + "```")


# On the store, through the CLI.


def test_the_demo_seeds_the_library_once_and_the_directory_is_the_guides(
    env: dict[str, str],
) -> None:
    seeded = sluice(env, "--domain", "library", "demo")
    again = sluice(env, "--domain", "library", "demo")
    directory = sluice(env, "--domain", "library", "directory")

    assert seeded.returncode == 0, seeded.stderr
    assert "dune, hobbit" in seeded.stdout
    assert "registered admin, teller, alice, bob" in seeded.stdout
    assert "sk-demo-alice" in seeded.stdout
    assert again.returncode == 0, again.stderr
    assert "dune" not in again.stdout.split("\n")[0]  # nothing added the second time
    assert directory.returncode == 0, directory.stderr
    assert in_guide("```text\n" + directory.stdout + "```")
    assert in_guide("sluice --domain library demo\nsluice --domain library directory\n")


def test_sluice_call_lends_a_book_and_the_read_shows_it(env: dict[str, str]) -> None:
    assert sluice(env, "--domain", "library", "demo").returncode == 0
    lend = (
        "call",
        "lend_book",
        "book=dune",
        "reader=alice",
        "--as",
        "alice",
        "--domain",
        "library",
    )
    read = ("call", "get_book", "book=dune", "--as", "bob", "--domain", "library")

    lent = sluice(env, *lend)
    shown = sluice(env, *read)
    refused = sluice(env, "call", "lend_book", "book=dune", "reader=bob", "--as", "bob",
                     "--domain", "library")  # fmt: skip

    assert in_guide("sluice " + " ".join(lend) + "\nsluice " + " ".join(read) + "\n")
    assert lent.returncode == 0, lent.stderr
    outcome = json.loads(lent.stdout)
    assert (outcome["status"], outcome["changed"]) == ("committed", 1)
    assert [(e["account"], e["type"]) for e in outcome["events"]] == [("dune", "Lent")]
    assert json.loads(shown.stdout)["result"] == {
        "book": "dune",
        "title": "Dune",
        "lent_to": "alice",
    }
    assert refused.returncode == 1
    assert json.loads(refused.stdout)["error"] == LENT_TWICE


def test_sluice_run_previews_a_program_and_commits_it_when_confirmed(
    env: dict[str, str], tmp_path: Path
) -> None:
    assert sluice(env, "--domain", "library", "demo").returncode == 0
    program = tmp_path / "program.py"
    program.write_text(PROGRAM, encoding="utf-8")

    asked = sluice(env, "run", str(program), "--as", "teller", "--domain", "library", "--json")
    done = sluice(env, "run", str(program), "--as", "teller", "--domain", "library", "--yes",
                  "--json")  # fmt: skip

    assert in_guide("sluice run program.py --as\nteller --domain library")
    # Without a terminal nobody confirmed it: it waits, nothing written.
    assert json.loads(asked.stdout)["status"] == "declined", asked.stdout + asked.stderr
    assert done.returncode == 0, done.stdout + done.stderr
    outcome = json.loads(done.stdout)
    assert (outcome["status"], outcome["result"]) == ("committed", "bob")
    assert [(e["account"], e["type"]) for e in outcome["events"]] == [("hobbit", "Lent")]


# Served over HTTP.


def test_the_served_library_lends_a_book_and_the_read_shows_its_effect(base: str) -> None:
    assert in_guide("sluice serve --domain library --demo\n")
    assert in_guide("""-d '{"book": "dune", "reader": "alice"}'""")
    assert holder(base, "dune") is None  # the demo's book, on the shelf

    lent = call(base, "alice", "lend_book", {"book": "dune", "reader": "alice"})

    assert lent.status_code == 200, lent.text
    outcome = lent.json()
    assert (outcome["status"], outcome["changed"]) == ("committed", 1)
    assert [(e["account"], e["type"], e["data"]) for e in outcome["events"]] == [
        ("dune", "Lent", {"reader": "alice"})
    ]
    assert outcome["result"] == {"book": "dune", "title": "Dune", "lent_to": "alice"}
    assert holder(base, "dune") == "alice"


def test_the_domains_own_refusal_is_a_422_naming_it_and_writes_nothing(base: str) -> None:
    book = new_book(base)
    assert call(base, "alice", "lend_book", {"book": book, "reader": "alice"}).status_code == 200
    before = last_position(base)

    refused = call(base, "bob", "lend_book", {"book": book, "reader": "bob"})

    assert refused.status_code == 422, refused.text
    assert refused.headers["content-type"].startswith("application/problem+json")
    problem = refused.json()
    assert problem["detail"] == f"lend_book: book {book} is already lent to alice"
    assert problem["refusal"] == "book-lent"
    assert in_guide(f'"detail": "{LENT_TWICE}"') and in_guide('"refusal": "book-lent"')
    assert domain_events_after(base, before) == []
    assert holder(base, book) == "alice"


def test_a_customer_lends_only_to_itself(base: str) -> None:
    book = new_book(base)
    before = last_position(base)

    refused = call(base, "bob", "lend_book", {"book": book, "reader": "alice"})

    assert refused.status_code == 403, refused.text
    assert domain_events_after(base, before) == []
    assert holder(base, book) is None


def test_a_program_is_previewed_and_committed_when_confirmed_by_its_hash(base: str) -> None:
    body = {"language": "python", "source": PROGRAM}
    assert in_guide(f"-d '{json.dumps(body)}'")  # the program the guide proposes with curl
    proposed = httpx.post(
        f"{base}/v1/programs",
        headers=auth("teller"),
        json=body,
        timeout=60,
    )
    assert proposed.status_code == 201, proposed.text
    proposal = proposed.json()
    preview = proposal["preview"]
    assert [(e["account"], e["type"]) for e in preview["events"]] == [("hobbit", "Lent")]
    assert [c["name"] for c in preview["calls"]] == ["lend_book", "get_book"]
    assert preview["result"] == "bob"
    assert holder(base, "hobbit") is None  # a preview writes nothing
    # The inbox is a read model: read it once it holds the proposal's position.
    listed = httpx.get(
        f"{base}/v1/programs",
        params={"min_position": proposal["position"]},
        headers=auth("teller"),
        timeout=30,
    )
    assert listed.status_code == 200, listed.text
    assert proposal["id"] in listed.text  # the inbox lists it

    wrong = httpx.post(
        f"{base}/v1/programs/{proposal['id']}/confirm",
        headers=auth("teller"),
        json={"preview_hash": "0" * 64},
        timeout=60,
    )
    assert wrong.status_code >= 400
    assert holder(base, "hobbit") is None
    confirmed = httpx.post(
        f"{base}/v1/programs/{proposal['id']}/confirm",
        headers=auth("teller"),
        json={"preview_hash": proposal["preview_hash"]},
        timeout=60,
    )

    assert confirmed.status_code == 200, confirmed.text
    outcome = confirmed.json()
    assert (outcome["status"], outcome["result"]) == ("committed", "bob")
    assert [(e["account"], e["type"], e["data"]) for e in outcome["events"]] == [
        (e["account"], e["type"], e["data"]) for e in preview["events"]
    ]
    assert holder(base, "hobbit") == "bob"


def test_the_log_verifies_and_replays_after_the_librarys_runs(
    served: tuple[str, dict[str, str]],
) -> None:
    base, env = served
    book = new_book(base)
    assert call(base, "bob", "lend_book", {"book": book, "reader": "bob"}).status_code == 200

    verified = sluice(env, "--domain", "library", "audit", "verify", "--json")
    replayed = sluice(env, "--domain", "library", "replay", "--from-scratch", "--json")

    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert json.loads(verified.stdout)["ok"] is True
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert all(r["equal"] for r in json.loads(replayed.stdout))


# The rules a definition is checked against, as the guide quotes them.

BROKEN = [
    pytest.param(
        "library/use_cases.py",
        'Field(description="The reader who borrows it.")',
        "Field()",
        "LendBook.reader: field has no description",
        id="description",
    ),
    pytest.param(
        "library/use_cases.py",
        '"""Lend a book to a reader.\n\n    Refused if the book is lent already.\n    """\n',
        "",
        "LendBook: a use case needs a docstring",
        id="docstring",
    ),
    pytest.param(
        "library/use_cases.py",
        '    permission = Permission.of("customer", *STAFF)\n',
        "",
        "LendBook: a use case needs a permission",
        id="permission",
    ),
    pytest.param(
        "library/results.py",
        "lent_to: Annotated[str | None, Fact]",
        "lent_to: str | None",
        "BookView.lent_to: no integrity label; mark it Fact or Text(...) in its Annotated[...]",
        id="label",
    ),
    pytest.param(
        "library/use_cases.py",
        """'lend_book(book="dune", reader="{me}")'""",
        """'lend_book(book="dune", reader="{me}"'""",
        "LendBook.examples: the program of 'Lend me dune.' is not Python: '(' was never closed",
        id="example",
    ),
    pytest.param(
        "library/use_cases.py",
        "reader: Annotated[ReaderId, Owned]",
        "reader: Annotated[str, Owned]",
        "LendBook.reader: Owned marks an account argument (an AccountName), not str",
        id="owned",
    ),
]


@pytest.mark.parametrize(("path", "written", "broken", "message"), BROKEN)
def test_a_definition_that_breaks_a_rule_stops_the_domain_with_the_guides_message(
    tmp_path: Path, path: str, written: str, broken: str, message: str
) -> None:
    files = example_files(guide_text())
    assert written in files[path]
    files[path] = files[path].replace(written, broken, 1)
    env = environment(write_package(tmp_path / "sluice-library", files), tmp_path / "store.db")

    done = sluice(env, "--domain", "library", "directory")

    assert done.returncode == USAGE_ERROR
    said = "error: --domain library: domain library (library.domain:LIBRARY) could not be loaded: "
    assert done.stderr == said + message + "\n"
    assert in_guide(f"`{message}`")
    assert not (tmp_path / "store.db").exists()


def test_the_guide_quotes_the_whole_refusal_of_a_missing_description() -> None:
    assert in_guide(
        "error: --domain library: domain library (library.domain:LIBRARY) could not be loaded: "
        "LendBook.reader: field has no description\n"
    )


def test_a_book_lent_since_the_preview_makes_the_confirmation_a_conflict(base: str) -> None:
    book = new_book(base)
    source = f'lend_book(book="{book}", reader="bob")\n'
    proposal = httpx.post(
        f"{base}/v1/programs",
        headers=auth("teller"),
        json={"language": "python", "source": source},
        timeout=60,
    ).json()
    assert call(base, "alice", "lend_book", {"book": book, "reader": "alice"}).status_code == 200
    before = last_position(base)

    confirmed = httpx.post(
        f"{base}/v1/programs/{proposal['id']}/confirm",
        headers=auth("teller"),
        json={"preview_hash": proposal["preview_hash"]},
        timeout=60,
    )

    assert confirmed.status_code == 409, confirmed.text
    assert confirmed.json()["type"] == "urn:sluice:problem:conflict"
    assert f"now fails: lend_book: book {book} is already lent to alice" in confirmed.text
    assert in_guide("the program now fails: lend_book: book hobbit is already lent to alice")
    assert domain_events_after(base, before) == []
    assert holder(base, book) == "alice"


def test_the_library_serves_its_books_as_a_resource_derived_from_get_book(base: str) -> None:
    assert in_guide("GET /v1/books/dune")
    book = new_book(base)

    read = httpx.get(f"{base}/v1/books/{book}", headers=auth("bob"), timeout=30)
    missing = httpx.get(f"{base}/v1/books/no-such-book", headers=auth("bob"), timeout=30)
    document = httpx.get(f"{base}/openapi.json", timeout=30).json()

    assert read.status_code == 200, read.text
    assert read.json() == call(base, "bob", "get_book", {"book": book}).json()["result"]
    assert missing.status_code == 404, missing.text
    assert "no-such-book" in missing.json()["detail"]
    assert document["paths"]["/v1/books/{book}"]["get"]["operationId"] == "get_book"
    assert not any(path.startswith("/v1/accounts") for path in document["paths"])
    # A domain that declares no examples shows none of the bank's in its document.
    schemas = document["components"]["schemas"]
    assert "examples" not in schemas["ProgramRequest"]
    assert "transfer" not in json.dumps(document)
