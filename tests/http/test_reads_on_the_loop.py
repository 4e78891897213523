"""Balances read on the event loop (Postgres, with views a projector keeps current) answer
exactly what the same read answers in a worker thread: rows, pages, refusals.

The served proof that no worker thread is taken is in test_store_waits.py."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from application.bank import read_routes as bank
from gateway.bootstrap import Sluice
from gateway.core.errors import GatewayError
from gateway.core.program.sandbox import Sandbox
from gateway.core.read_side import ReadSide
from gateway.demo import seed
from gateway.interfaces.http.app import create_app
from tests.conftest import TEST_CAPS, Clock
from tests.http.conftest import KEYS, auth
from tests.stores import empty_store


def answer(response: Any) -> tuple[int, object]:
    """The status and body, without the request's own id."""
    body = response.json()
    if isinstance(body, dict):
        body.pop("request_id", None)
    return response.status_code, body


ACCOUNTS = ["alice", "bob", "carla", "nobody", "a b", "x" * 65, "-", "ALICE"]


@pytest.fixture
def projected(tmp_path: Path, sandbox: Sandbox, clock: Clock) -> Iterator[Sluice]:
    """A Postgres Sluice whose views are current and said to be kept so (as `sluice serve`
    with its projector)."""
    caps = replace(TEST_CAPS, requests_per_minute=10_000)
    with (
        empty_store("postgres", tmp_path) as url,
        Sluice(url, caps, sandbox=sandbox, clock=clock) as built,
    ):
        seed(built.gateway)
        teller = built.gateway.authenticate(KEYS["teller"])
        for n in range(5):
            built.gateway.call(teller, "open_account", {"account": f"acct-{n}", "owner": "Ann"})
        built.read_models.catch_up()
        built.projected_elsewhere = True
        yield built


@pytest.mark.postgres
def test_every_principal_reads_the_same_accounts_and_refusals_on_the_loop_as_in_a_thread(
    projected: Sluice,
) -> None:
    with TestClient(create_app(projected), raise_server_exceptions=False) as client:
        for name in KEYS:
            for account in ACCOUNTS:
                on_loop = client.get(f"/v1/accounts/{account}", headers=auth(name))
                # consistent=true catches the views up first, in a worker thread.
                in_thread = client.get(
                    f"/v1/accounts/{account}", headers=auth(name), params={"consistent": "true"}
                )
                seen = (name, account, on_loop.status_code)
                assert answer(on_loop) == answer(in_thread), seen
            pages = [client.get("/v1/accounts", headers=auth(name), params={"limit": 2})]
            while pages[-1].status_code == 200 and pages[-1].json()["next_cursor"]:
                cursor = pages[-1].json()["next_cursor"]
                asked = {"limit": 2, "cursor": cursor}
                pages.append(client.get("/v1/accounts", headers=auth(name), params=asked))
            whole = client.get("/v1/accounts", headers=auth(name), params={"consistent": "true"})
            assert whole.status_code == pages[0].status_code, name
            if whole.status_code == 200:
                paged = [item for page in pages for item in page.json()["items"]]
                assert paged == whole.json()["items"], name
        # The last of them, the admin, sees every account, 8 here: four pages of two.
        assert len(pages) == 4 and all(page.status_code == 200 for page in pages)
        nonsense = {"cursor": "nonsense"}
        bad = client.get("/v1/accounts", headers=auth("alice"), params=nonsense)
        also = client.get(
            "/v1/accounts", headers=auth("alice"), params={**nonsense, "consistent": "true"}
        )
        assert bad.status_code == 422 and "cursor" in bad.json()["detail"], bad.text
        assert answer(bad) == answer(also)


@pytest.mark.postgres
def test_the_loop_answers_only_reads_of_current_views_and_leaves_the_rest_to_a_thread(
    projected: Sluice,
) -> None:
    read_side = ReadSide(projected.gateway)
    alice = projected.gateway.authenticate(KEYS["alice"])

    async def reads() -> list[object]:
        return [
            await read_side.async_one(bank.ACCOUNTS, alice, "alice"),
            await read_side.async_one(bank.ACCOUNTS, alice, "alice", consistent=True),
            await read_side.async_one(bank.ACCOUNTS, alice, "alice", min_position=1),
            await read_side.async_list_page(bank.ACCOUNTS, alice, consistent=True),
        ]

    with asyncio.Runner() as runner:
        answered, *passed_on = runner.run(reads())
        assert answered == read_side.one(bank.ACCOUNTS, alice, "alice")
        assert passed_on == [None, None, None]
        # A refusal is raised on the loop, as in the thread: another customer's account.
        with pytest.raises(GatewayError, match="bob"):
            runner.run(read_side.async_one(bank.ACCOUNTS, alice, "bob"))
        # Views nobody keeps current are caught up first, in a thread.
        projected.projected_elsewhere = False
        assert runner.run(read_side.async_one(bank.ACCOUNTS, alice, "alice")) is None
        projected.projected_elsewhere = True
        assert runner.run(read_side.async_one(bank.ACCOUNTS, alice, "alice")) == answered


def test_a_store_without_asynchronous_reads_leaves_every_read_to_a_thread(
    tmp_path: Path, sandbox: Sandbox, clock: Clock
) -> None:
    with (
        empty_store("sqlite", tmp_path) as url,
        Sluice(url, TEST_CAPS, sandbox=sandbox, clock=clock) as sqlite,
    ):
        seed(sqlite.gateway)
        sqlite.read_models.catch_up()
        sqlite.projected_elsewhere = True
        alice = sqlite.gateway.authenticate(KEYS["alice"])
        read_side = ReadSide(sqlite.gateway)
        assert asyncio.run(read_side.async_one(bank.ACCOUNTS, alice, "alice")) is None
        assert read_side.one(bank.ACCOUNTS, alice, "alice").account == "alice"
