"""Cursor pages on every list that can grow: one shape ({items, next_cursor}), opaque
cursors bound to their list, a bounded limit, and a clear 422 for a bad limit or cursor."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.http.conftest import auth

PROBLEM = "application/problem+json"


def _walk(client: TestClient, path: str, who: str, **params: Any) -> list[list[dict[str, Any]]]:
    """Every page of a list, following next_cursor to the end."""
    pages: list[list[dict[str, Any]]] = []
    cursor = None
    while True:
        asked = params | ({"cursor": cursor} if cursor else {})
        answer = client.get(path, params=asked, headers=auth(who))
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert set(body) == {"items", "next_cursor"}
        pages.append(body["items"])
        cursor = body["next_cursor"]
        if cursor is None:
            return pages
        assert len(pages) < 100, "the pages never end"


def _open(client: TestClient, name: str) -> None:
    answer = client.post(
        "/v1/use-cases/open_account", json={"account": name, "owner": "Shop"}, headers=auth("admin")
    )
    assert answer.status_code == 200, answer.text


def test_the_accounts_come_a_page_at_a_time_in_account_order_each_once(
    client: TestClient,
) -> None:
    for n in range(7):
        _open(client, f"shop-{n}")
    every = client.get("/v1/accounts", params={"consistent": "true"}, headers=auth("teller"))
    expected = [row["account"] for row in every.json()["items"]]

    pages = _walk(client, "/v1/accounts", "teller", limit=3)

    assert len(expected) == 10
    assert [len(page) for page in pages] == [3, 3, 3, 1]
    assert [row["account"] for page in pages for row in page] == expected
    assert every.json()["next_cursor"] is None  # the default page holds them all


def test_an_account_opened_between_two_pages_is_shown_once_and_none_is_skipped(
    client: TestClient,
) -> None:
    first = client.get("/v1/accounts", params={"limit": 2}, headers=auth("teller")).json()
    assert [row["account"] for row in first["items"]] == ["alice", "bob"]
    _open(client, "aaron")  # before the cursor: not on the later pages
    _open(client, "zoe")  # after it: on them
    rest: list[str] = []
    cursor = first["next_cursor"]
    while cursor:
        page = client.get(
            "/v1/accounts",
            params={"limit": 2, "cursor": cursor, "consistent": "true"},
            headers=auth("teller"),
        ).json()
        rest += [row["account"] for row in page["items"]]
        cursor = page["next_cursor"]

    assert rest == ["carla", "zoe"]


def test_a_customer_pages_only_through_its_own_accounts(client: TestClient) -> None:
    pages = _walk(client, "/v1/accounts", "alice", limit=1)

    assert [[row["account"] for row in page] for page in pages] == [["alice"]]


def test_a_statement_goes_past_a_hundred_movements_page_by_page(client: TestClient) -> None:
    for _ in range(120):
        paid = client.post(
            "/v1/use-cases/deposit", json={"account": "carla", "amount": 1}, headers=auth("teller")
        )
        assert paid.status_code == 200, paid.text

    pages = _walk(client, "/v1/accounts/carla/statement", "teller", limit=50, consistent="true")
    versions = [entry["version"] for page in pages for entry in page]

    assert [len(page) for page in pages] == [50, 50, 21]  # the opening and 120 deposits
    assert versions == sorted(versions, reverse=True) == list(range(121, 0, -1))
    assert pages[0][0]["balance"] == "120.00" and pages[-1][-1]["kind"] == "opened"


def test_the_console_timeline_pages_as_the_statement_does(client: TestClient) -> None:
    for _ in range(5):
        client.post(
            "/v1/use-cases/deposit", json={"account": "carla", "amount": 1}, headers=auth("teller")
        )

    timeline = _walk(client, "/v1/console/accounts/carla/timeline", "teller", limit=2)
    statement = _walk(client, "/v1/accounts/carla/statement", "teller", limit=2)

    assert [[e["version"] for e in page] for page in timeline] == [
        [e["version"] for e in page] for page in statement
    ]
    assert all(e["position"] and e["run_id"] for page in timeline for e in page)


@pytest.mark.parametrize(
    ("path", "params", "detail"),
    [
        ("/v1/accounts", {"limit": 0}, "query.limit: Input should be greater than or equal to 1"),
        ("/v1/accounts", {"limit": 201}, "query.limit: Input should be less than or equal to 200"),
        ("/v1/accounts", {"limit": "many"}, "query.limit: Input should be a valid integer"),
        ("/v1/accounts/bob/statement", {"limit": 0}, "query.limit: Input should be greater"),
        ("/v1/programs", {"limit": 500}, "query.limit: Input should be less than or equal to 200"),
        ("/v1/accounts", {"cursor": "not-a-cursor"}, "cursor: is not a cursor this service gave"),
        ("/v1/accounts", {"cursor": "x" * 300}, "query.cursor: String should have at most 256"),
        ("/v1/accounts/bob/statement", {"cursor": "%%%"}, "cursor: is not a cursor this service"),
        ("/v1/programs", {"cursor": "WzFd"}, "cursor: is not a cursor this service gave"),
    ],
)
def test_a_bad_limit_or_cursor_is_a_clear_422(
    client: TestClient, path: str, params: dict[str, Any], detail: str
) -> None:
    answer = client.get(path, params=params, headers=auth("teller"))

    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"].startswith(PROBLEM)
    assert answer.json()["type"] == "urn:sluice:problem:invalid-request"
    assert detail in answer.json()["detail"]


def test_a_cursor_serves_only_the_list_that_gave_it(client: TestClient) -> None:
    accounts = client.get("/v1/accounts", params={"limit": 1}, headers=auth("teller")).json()
    bobs = client.get(
        "/v1/accounts/bob/statement", params={"limit": 1}, headers=auth("teller")
    ).json()
    client.post(
        "/v1/use-cases/deposit", json={"account": "bob", "amount": 1}, headers=auth("teller")
    )
    client.post(
        "/v1/use-cases/deposit", json={"account": "bob", "amount": 1}, headers=auth("teller")
    )
    bobs = client.get(
        "/v1/accounts/bob/statement", params={"limit": 1, "consistent": "true"},
        headers=auth("teller"),
    ).json()  # fmt: skip
    assert accounts["next_cursor"] and bobs["next_cursor"]

    wrong_list = client.get(
        "/v1/accounts/bob/statement",
        params={"cursor": accounts["next_cursor"]},
        headers=auth("teller"),
    )
    wrong_account = client.get(
        "/v1/accounts/alice/statement",
        params={"cursor": bobs["next_cursor"]},
        headers=auth("teller"),
    )

    for answer, made_for in ((wrong_list, "statement:bob"), (wrong_account, "statement:alice")):
        assert answer.status_code == 422, answer.text
        assert answer.json()["detail"] == (
            f"cursor: was given for another list, not for {made_for}; start again without a cursor"
        )


def test_the_openapi_document_describes_the_pages_and_the_positions(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    operations = {
        op["operationId"]: op for item in document["paths"].values() for op in item.values()
    }

    for name in ("list_accounts", "get_statement", "list_programs", "console_timeline"):
        operation = operations[name]
        params = {p["name"]: p for p in operation["parameters"]}
        assert {"cursor", "limit", "min_position"} <= set(params), name
        assert params["limit"]["schema"]["maximum"] == 200
        assert "next_cursor" in params["cursor"]["description"]
        assert "position" in params["min_position"]["description"]
        ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
        page = schemas[ref.rsplit("/", 1)[-1]]
        assert set(page["properties"]) == {"items", "next_cursor"}, name
    assert "min_position" in {p["name"] for p in operations["get_account"]["parameters"]}
    for written in ("Outcome", "Proposal"):
        assert "min_position" in schemas[written]["properties"]["position"]["description"]
