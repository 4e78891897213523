"""The console's routes without a browser: the files it ships, their headers, and its two
reads (who is signed in; an account's movements with their runs) under the usual policy."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient

from gateway.bootstrap import Sluice
from gateway.core.program.sandbox import Sandbox
from gateway.demo import seed
from gateway.interfaces.console.assets import shipped
from gateway.interfaces.http.app import create_app
from tests.conftest import TEST_CAPS


@pytest.fixture
def client(sandbox: Sandbox) -> Iterator[TestClient]:
    caps = replace(TEST_CAPS, requests_per_minute=10_000, programs_per_minute=10_000)
    with Sluice("memory://", caps, sandbox=sandbox) as sluice:
        seed(sluice.gateway)
        with TestClient(create_app(sluice), raise_server_exceptions=False) as test_client:
            yield test_client


def auth(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer sk-demo-{name}"}


def test_the_page_is_served_at_the_root_with_a_strict_content_security_policy(
    client: TestClient,
) -> None:
    page = client.get("/")

    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert "script-src 'self';" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
    assert '<script type="module" src="/console/js/main.js">' in page.text


def test_every_file_the_page_names_ships_in_the_package_and_nothing_comes_from_elsewhere(
    client: TestClient,
) -> None:
    files = shipped()
    for name, body in files.items():
        text = body.decode()
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", ""), name
        assert "https://" not in text, name
        answer = client.get(f"/console/{name}")
        assert answer.status_code == 200, name
        assert answer.content == body
    assert client.get("/console/js/main.js").headers["content-type"].startswith("text/javascript")
    assert {"index.html", "console.css", "js/main.js", "js/review.js", "js/chart.js"} <= set(files)


@pytest.mark.parametrize(
    "path", ["/console/nope.js", "/console/../pyproject.toml", "/console/%2e%2e/app.py"]
)
def test_only_shipped_files_are_served(client: TestClient, path: str) -> None:
    answer = client.get(path)

    assert answer.status_code == 404
    assert answer.headers["content-type"] == "application/problem+json"


def test_me_says_who_is_signed_in_and_what_it_reaches(client: TestClient) -> None:
    assert client.get("/v1/console/me", headers=auth("alice")).json() == {
        "name": "alice",
        "role": "customer",
        "accounts": ["alice"],
        "owned": "accounts",
        "audits": False,
        "scope": "human",
    }
    auditor = client.get("/v1/console/me", headers=auth("auditor")).json()
    assert (auditor["accounts"], auditor["audits"]) == (None, True)
    assert client.get("/v1/console/me").status_code == 401


def test_the_timeline_links_each_movement_to_the_run_that_committed_it(
    client: TestClient,
) -> None:
    alice = auth("alice")
    proposal = client.post(
        "/v1/programs",
        headers=alice,
        json={"language": "python", "source": 'transfer(payer="alice", payee="bob", amount=5)'},
    ).json()
    client.post(
        f"/v1/programs/{proposal['id']}/confirm",
        headers=alice,
        json={"preview_hash": proposal["preview_hash"]},
    )

    timeline = client.get("/v1/console/accounts/alice/timeline", headers=alice).json()["items"]
    statement = client.get(
        "/v1/accounts/alice/statement", headers=alice, params={"limit": 100}
    ).json()["items"]

    assert [(e["kind"], e["amount"], e["balance"]) for e in timeline] == [
        ("transfer_out", "-5.00", "95.00"),
        ("deposit", "100.00", "100.00"),
        ("opened", "0.00", "0.00"),
    ]
    assert [e["version"] for e in timeline] == [e["version"] for e in statement]
    assert timeline[0]["run_id"] == proposal["id"]
    assert all(e["run_id"] for e in timeline)  # the demo's opening was a run too
    assert timeline[0]["position"] > timeline[1]["position"]


@pytest.mark.parametrize(
    ("who", "account", "status"),
    [
        ("alice", "bob", 403),  # a customer reads its own accounts only
        ("alice", "nobody", 403),
        ("auditor", "bob", 200),
        ("teller", "carla", 200),
        ("admin", "nobody", 404),
        ("admin", "Not An Id", 404),
    ],
)
def test_the_timeline_answers_as_the_statement_does(
    client: TestClient, who: str, account: str, status: int
) -> None:
    timeline = client.get(f"/v1/console/accounts/{account}/timeline", headers=auth(who))
    statement = client.get(f"/v1/accounts/{account}/statement", headers=auth(who))

    assert timeline.status_code == statement.status_code == status
    if status != 200:
        assert timeline.json()["detail"] == statement.json()["detail"]
