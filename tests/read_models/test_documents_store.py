"""The records of a domain's declared read models, in every read-model store: written with
their window's tracking exactly once, read by key and owner in code-point order, and
forgotten or taken over one read model at a time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from application.ledger import Ledger
from application.read_models.rows import DeadLetter, DocumentChange, DocumentRow, RunChange
from application.read_models.service import LIVE, REPLAY, open_read_model_store
from application.read_models.store import (
    AsyncDocuments,
    ReadModelStore,
    StaleWindowError,
    Window,
    WindowWrite,
)
from application.store_config import eventsourcing_env
from tests.postgres import support
from tests.stores import empty_store

ORDERS, PRODUCTS = "orders", "products"


def tracked(store: ReadModelStore, projection: str) -> str:
    return f"shop:{store.prefix}{projection}"


def put(projection: str, key: str, owner: str | None, body: str) -> DocumentChange:
    return DocumentChange(projection, key, owner, body)


def remove(projection: str, key: str) -> DocumentChange:
    return DocumentChange(projection, key, None, None)


def row(projection: str, key: str, owner: str | None, body: str) -> DocumentRow:
    return DocumentRow(projection, key, owner, body)


def test_a_window_writes_its_records_with_its_position(live: ReadModelStore) -> None:
    name = tracked(live, ORDERS)

    live.apply_documents(
        [put(ORDERS, "o-2", "ann", '{"total": 2}'), put(ORDERS, "o-1", "bob", '{"total": 1}')],
        Window(name, 0, 3),
    )

    assert live.documents(ORDERS) == [
        row(ORDERS, "o-1", "bob", '{"total": 1}'),
        row(ORDERS, "o-2", "ann", '{"total": 2}'),
    ]
    assert live.positions([name]) == {name: 3}
    assert live.documents(PRODUCTS) == []


def test_a_stale_window_writes_neither_records_nor_position(live: ReadModelStore) -> None:
    name = tracked(live, ORDERS)
    live.apply_documents([put(ORDERS, "o-1", "ann", '{"total": 1}')], Window(name, 0, 3))
    before = live.documents(ORDERS)

    with pytest.raises(StaleWindowError):  # the same window again
        live.apply_documents([put(ORDERS, "o-9", "ann", "{}")], Window(name, 0, 3))
    with pytest.raises(StaleWindowError):  # one that does not start at the position
        live.apply_documents([remove(ORDERS, "o-1")], Window(name, 2, 5))

    assert live.documents(ORDERS) == before
    assert live.positions([name]) == {name: 3}


def test_windows_written_together_are_written_all_or_none(live: ReadModelStore) -> None:
    orders, products = tracked(live, ORDERS), tracked(live, PRODUCTS)
    live.apply_documents([put(PRODUCTS, "p-1", None, '{"price": 1}')], Window(products, 0, 4))

    with pytest.raises(StaleWindowError):  # the products' window is stale: the orders' too
        live.write(
            [
                WindowWrite(Window(orders, 0, 4), documents=[put(ORDERS, "o-1", "ann", "{}")]),
                WindowWrite(Window(products, 0, 4), documents=[remove(PRODUCTS, "p-1")]),
            ]
        )

    assert live.documents(ORDERS) == []
    assert live.documents(PRODUCTS) == [row(PRODUCTS, "p-1", None, '{"price": 1}')]
    assert live.positions([orders, products]) == {orders: 0, products: 4}


def test_a_windows_changes_apply_in_order(live: ReadModelStore) -> None:
    name = tracked(live, ORDERS)
    live.apply_documents([put(ORDERS, "o-1", "ann", '{"v": 1}')], Window(name, 0, 1))

    live.apply_documents(
        [
            put(ORDERS, "o-2", "ann", '{"v": 1}'),  # set, then removed
            remove(ORDERS, "o-2"),
            remove(ORDERS, "o-1"),  # removed, then set again, for another owner
            put(ORDERS, "o-1", "bob", '{"v": 2}'),
            put(ORDERS, "o-3", "ann", '{"v": 1}'),  # set twice: the later wins
            put(ORDERS, "o-3", None, '{"v": 3}'),
            remove(ORDERS, "o-4"),  # never set
        ],
        Window(name, 1, 2),
    )

    assert live.documents(ORDERS) == [
        row(ORDERS, "o-1", "bob", '{"v": 2}'),
        row(ORDERS, "o-3", None, '{"v": 3}'),
    ]


def test_records_are_read_by_key_and_by_owner(live: ReadModelStore) -> None:
    live.write(
        [
            WindowWrite(
                Window(tracked(live, ORDERS), 0, 5),
                documents=[
                    put(ORDERS, "o-1", "ann", "{}"),
                    put(ORDERS, "o-2", "bob", "{}"),
                    put(ORDERS, "o-3", None, "{}"),
                    put(ORDERS, "o-4", "cat", "{}"),
                ],
            ),
            WindowWrite(  # the same keys in another read model are its own
                Window(tracked(live, PRODUCTS), 0, 5),
                documents=[put(PRODUCTS, "o-1", "ann", "{}"), put(PRODUCTS, "o-2", None, "{}")],
            ),
        ]
    )

    def keys(**asked: list[str]) -> list[str]:
        return [r.key for r in live.documents(ORDERS, **asked)]

    assert keys() == ["o-1", "o-2", "o-3", "o-4"]
    assert keys(keys=["o-4", "o-2", "o-9"]) == ["o-2", "o-4"]
    assert keys(keys=[]) == []
    # Nobody's records are every owner's to read.
    assert keys(owners=["ann"]) == ["o-1", "o-3"]
    assert keys(owners=["ann", "cat"]) == ["o-1", "o-3", "o-4"]
    assert keys(owners=[]) == ["o-3"]
    assert keys(keys=["o-1", "o-2", "o-3"], owners=["bob"]) == ["o-2", "o-3"]
    assert [r.key for r in live.documents(PRODUCTS, owners=["bob"])] == ["o-2"]


KEYS = ["ab", "a_b", "a-b", "aB", "a1", "A", "é", "z", "a b", "ä"]


def test_records_are_listed_by_code_point(live: ReadModelStore) -> None:
    written_so(live)

    assert [r.key for r in live.documents(ORDERS)] == sorted(KEYS)


@pytest.mark.postgres
def test_records_are_listed_by_code_point_whatever_the_databases_collation() -> None:
    # en-US puts `_` before `-`, both before digits, and `a b` after `ab`.
    with (
        support.database_sorting_as("en-US") as url,
        Ledger(env=eventsourcing_env(url)) as ledger,
    ):
        store = open_read_model_store(ledger, LIVE)
        written_so(store)

        assert [r.key for r in store.documents(ORDERS)] == sorted(KEYS)
        assert [r.key for r in store.documents(ORDERS, keys=KEYS[:4])] == sorted(KEYS[:4])


def written_so(store: ReadModelStore) -> None:
    store.apply_documents(
        [put(ORDERS, key, None, "{}") for key in KEYS], Window(tracked(store, ORDERS), 0, 1)
    )


def letter(projection: str, position: int) -> DeadLetter:
    return DeadLetter(projection, position, "boom", "2026-12-06T00:00:00Z")


def shop_and_runs(store: ReadModelStore, body: str) -> None:
    """Orders and products at position 2, each with a dead letter at 3; a run at 3."""
    orders, products = tracked(store, ORDERS), tracked(store, PRODUCTS)
    store.write(
        [
            WindowWrite(Window(orders, 0, 2), documents=[put(ORDERS, "o-1", "ann", body)]),
            WindowWrite(Window(products, 0, 2), documents=[put(PRODUCTS, "p-1", None, body)]),
            WindowWrite(
                Window(tracked(store, "runs"), 0, 3),
                runs=[RunChange("r-1", principal="ann", status="pending", position=1)],
            ),
        ]
    )
    store.record_dead_letter(letter(ORDERS, 3), Window(orders, 2, 3))
    store.record_dead_letter(letter(PRODUCTS, 3), Window(products, 2, 3))


def test_a_reset_forgets_one_read_models_records_letters_and_position(
    live: ReadModelStore,
) -> None:
    shop_and_runs(live, '{"v": 1}')
    names = [tracked(live, n) for n in (ORDERS, PRODUCTS, "runs")]

    live.reset(ORDERS, tracked(live, ORDERS))

    assert live.documents(ORDERS) == []
    assert live.dead_letters(ORDERS) == []
    assert live.documents(PRODUCTS) == [row(PRODUCTS, "p-1", None, '{"v": 1}')]
    assert live.dead_letters(PRODUCTS) == [letter(PRODUCTS, 3)]
    assert [r.run_id for r in live.runs()] == ["r-1"]
    assert live.positions(names) == dict(zip(names, (0, 3, 3), strict=True))


def test_a_take_over_swaps_in_one_rebuilt_read_model(ledger: Ledger, live: ReadModelStore) -> None:
    rebuilt = open_read_model_store(ledger, REPLAY)
    shop_and_runs(live, '{"v": "live"}')
    live.apply_documents([put(ORDERS, "o-2", "bob", "{}")], Window(tracked(live, ORDERS), 3, 4))
    rebuilt.apply_documents(
        [put(ORDERS, "o-1", "ann", '{"v": "rebuilt"}'), put(ORDERS, "o-3", None, "{}")],
        Window(tracked(rebuilt, ORDERS), 0, 6),
    )
    rebuilt.apply_documents(
        [put(PRODUCTS, "p-9", None, "{}")], Window(tracked(rebuilt, PRODUCTS), 0, 6)
    )
    rebuilt.record_dead_letter(letter(ORDERS, 7), Window(tracked(rebuilt, ORDERS), 6, 7))

    position = live.take_over(ORDERS, REPLAY, tracked(rebuilt, ORDERS), tracked(live, ORDERS))

    assert position == 7
    assert live.documents(ORDERS) == [
        row(ORDERS, "o-1", "ann", '{"v": "rebuilt"}'),
        row(ORDERS, "o-3", None, "{}"),
    ]
    assert live.dead_letters(ORDERS) == [letter(ORDERS, 7)]
    assert live.positions([tracked(live, ORDERS)]) == {tracked(live, ORDERS): 7}
    # The other read model and the gateway's runs are as they were.
    assert live.documents(PRODUCTS) == [row(PRODUCTS, "p-1", None, '{"v": "live"}')]
    assert live.dead_letters(PRODUCTS) == [letter(PRODUCTS, 3)]
    assert [r.run_id for r in live.runs()] == ["r-1"]
    # And the rebuild keeps its own.
    assert [r.key for r in rebuilt.documents(ORDERS)] == ["o-1", "o-3"]


@pytest.mark.postgres
@pytest.mark.asyncio
async def test_records_are_read_alike_on_the_event_loop(tmp_path: Path) -> None:
    with (
        empty_store("postgres", tmp_path) as url,
        Ledger(env=eventsourcing_env(url)) as ledger,
    ):
        store = open_read_model_store(ledger, LIVE)
        assert isinstance(store, AsyncDocuments)
        written_so(store)
        store.apply_documents(
            [put(PRODUCTS, "p-1", "ann", "{}"), put(PRODUCTS, "p-2", None, "{}")],
            Window(tracked(store, PRODUCTS), 0, 1),
        )
        asked: list[dict[str, Any]] = [
            {},
            {"keys": KEYS[:4]},
            {"keys": []},
            {"owners": ["ann"]},
            {"keys": ["p-1", "p-2"], "owners": ["bob"]},
        ]
        for projection in (ORDERS, PRODUCTS):
            for question in asked:
                read = await store.async_documents(projection, **question)
                assert read == store.documents(projection, **question), question
        await store.datastore.aclose()  # type: ignore[attr-defined]
