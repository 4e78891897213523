"""The histories of the read models, in every read-model store: entries written with their
window's tracking exactly once, paged newest first, read whole in log order or by the last
entry of each stream, linked to the runs that committed them, and forgotten or taken over
one projection at a time."""

from __future__ import annotations

import pytest

from application.ledger import Ledger
from application.read_models.rows import DeadLetter, DocumentChange, HistoryEntry, RunLink
from application.read_models.service import LIVE, REPLAY, open_read_model_store
from application.read_models.store import (
    ReadModelStore,
    StaleWindowError,
    Window,
    WindowWrite,
)
from application.store_config import eventsourcing_env
from tests.postgres import support

MOVES, VISITS = "moves", "visits"


def tracked(store: ReadModelStore, projection: str) -> str:
    return f"app:{store.prefix}{projection}"


def entry(
    stream: str, version: int, position: int, projection: str = MOVES, run_id: str | None = None
) -> HistoryEntry:
    return HistoryEntry(projection, stream, version, position, f'{{"v": {version}}}', run_id)


def streams_a_and_b(store: ReadModelStore) -> None:
    """a: versions 1 to 4 at positions 1, 3, 5, 7; b: versions 1 and 2 at 2 and 6."""
    store.apply_history(
        [entry("a", 1, 1), entry("b", 1, 2), entry("a", 2, 3), entry("a", 3, 5)],
        [],
        Window(tracked(store, MOVES), 0, 5),
    )
    store.apply_history(
        [entry("b", 2, 6), entry("a", 4, 7)], [], Window(tracked(store, MOVES), 5, 7)
    )


def test_a_window_writes_its_entries_with_its_position(live: ReadModelStore) -> None:
    streams_a_and_b(live)

    assert live.history_entries(MOVES) == [
        entry("a", 1, 1),
        entry("b", 1, 2),
        entry("a", 2, 3),
        entry("a", 3, 5),
        entry("b", 2, 6),
        entry("a", 4, 7),
    ]
    assert live.positions([tracked(live, MOVES)]) == {tracked(live, MOVES): 7}
    assert live.history_entries(VISITS) == []


def test_a_stale_window_writes_neither_entries_nor_links_nor_position(
    live: ReadModelStore,
) -> None:
    streams_a_and_b(live)
    before = live.history_entries(MOVES)
    name = tracked(live, MOVES)

    with pytest.raises(StaleWindowError):  # the same window again
        live.apply_history([entry("c", 1, 8)], [], Window(name, 5, 7))
    with pytest.raises(StaleWindowError):  # one that does not start at the position
        live.apply_history([entry("c", 1, 9)], [RunLink(MOVES, "a", 1, "r-1")], Window(name, 8, 9))

    assert live.history_entries(MOVES) == before
    assert live.positions([name]) == {name: 7}


def test_a_history_is_paged_newest_first(live: ReadModelStore) -> None:
    streams_a_and_b(live)

    def versions(stream: str, limit: int, before: int | None = None) -> list[int]:
        return [e.version for e in live.history(MOVES, stream, limit, before_version=before)]

    assert versions("a", 10) == [4, 3, 2, 1]
    assert versions("a", 2) == [4, 3]
    assert versions("a", 2, before=3) == [2, 1]
    assert versions("a", 10, before=1) == []
    assert versions("b", 10) == [2, 1]
    assert versions("c", 10) == []
    assert live.history(VISITS, "a", 10) == []


def test_the_last_entry_of_each_stream(live: ReadModelStore) -> None:
    streams_a_and_b(live)
    live.apply_history(
        [entry("a", 1, 8, projection=VISITS)], [], Window(tracked(live, VISITS), 0, 8)
    )

    assert live.last_entries(MOVES, ["a", "b", "c"]) == {
        "a": entry("a", 4, 7),
        "b": entry("b", 2, 6),
    }
    assert live.last_entries(MOVES, ["b"]) == {"b": entry("b", 2, 6)}
    assert live.last_entries(MOVES, []) == {}
    assert live.last_entries(VISITS, ["a", "b"]) == {"a": entry("a", 1, 8, projection=VISITS)}


def test_links_set_the_run_of_entries_written_before_and_in_their_window(
    live: ReadModelStore,
) -> None:
    streams_a_and_b(live)
    name = tracked(live, MOVES)

    live.apply_history(
        [entry("b", 3, 8)],
        [
            RunLink(MOVES, "a", 4, "r-1"),  # an entry of an earlier window
            RunLink(MOVES, "b", 3, "r-2"),  # one of this window
            RunLink(MOVES, "c", 1, "r-3"),  # none: nothing to link
            RunLink(VISITS, "a", 3, "r-4"),  # another projection's stream
        ],
        Window(name, 7, 9),
    )

    assert {(e.stream, e.version): e.run_id for e in live.history_entries(MOVES)} == {
        ("a", 1): None,
        ("b", 1): None,
        ("a", 2): None,
        ("a", 3): None,
        ("b", 2): None,
        ("a", 4): "r-1",
        ("b", 3): "r-2",
    }


def test_windows_written_together_are_written_all_or_none(live: ReadModelStore) -> None:
    moves, visits = tracked(live, MOVES), tracked(live, VISITS)
    live.apply_history([entry("a", 1, 4, VISITS)], [], Window(visits, 0, 4))

    with pytest.raises(StaleWindowError):  # the visits' window is stale: the moves' too
        live.write(
            [
                WindowWrite(Window(moves, 0, 4), entries=[entry("a", 1, 1)]),
                WindowWrite(Window(visits, 0, 4), entries=[entry("b", 1, 2, VISITS)]),
            ]
        )

    assert live.history_entries(MOVES) == []
    assert live.history_entries(VISITS) == [entry("a", 1, 4, VISITS)]
    assert live.positions([moves, visits]) == {moves: 0, visits: 4}


def letter(projection: str, position: int) -> DeadLetter:
    return DeadLetter(projection, position, "boom", "2026-12-06T00:00:00Z")


def moves_and_visits(store: ReadModelStore, run_id: str) -> None:
    """Moves (entries and a record) and visits at 2, each with a dead letter at 3."""
    moves, visits = tracked(store, MOVES), tracked(store, VISITS)
    store.write(
        [
            WindowWrite(
                Window(moves, 0, 2),
                entries=[entry("a", 1, 1, run_id=run_id)],
                documents=[DocumentChange(MOVES, "a", None, "{}")],
            ),
            WindowWrite(Window(visits, 0, 2), entries=[entry("a", 1, 2, VISITS)]),
        ]
    )
    store.record_dead_letter(letter(MOVES, 3), Window(moves, 2, 3))
    store.record_dead_letter(letter(VISITS, 3), Window(visits, 2, 3))


def test_a_reset_forgets_one_projections_entries_records_letters_and_position(
    live: ReadModelStore,
) -> None:
    moves_and_visits(live, "r-1")
    names = [tracked(live, n) for n in (MOVES, VISITS)]

    live.reset(MOVES, tracked(live, MOVES))

    assert live.history_entries(MOVES) == []
    assert live.documents(MOVES) == []
    assert live.dead_letters(MOVES) == []
    assert live.history_entries(VISITS) == [entry("a", 1, 2, VISITS)]
    assert live.dead_letters(VISITS) == [letter(VISITS, 3)]
    assert live.positions(names) == dict(zip(names, (0, 3), strict=True))


def test_a_take_over_swaps_in_one_rebuilt_projection(ledger: Ledger, live: ReadModelStore) -> None:
    rebuilt = open_read_model_store(ledger, REPLAY)
    moves_and_visits(live, "r-live")
    live.apply_history([entry("b", 1, 4)], [], Window(tracked(live, MOVES), 3, 4))
    rebuilt.apply_history(
        [entry("a", 1, 1, run_id="r-rebuilt"), entry("c", 1, 5)],
        [],
        Window(tracked(rebuilt, MOVES), 0, 6),
    )
    rebuilt.apply_history([entry("z", 1, 6, VISITS)], [], Window(tracked(rebuilt, VISITS), 0, 6))
    rebuilt.record_dead_letter(letter(MOVES, 7), Window(tracked(rebuilt, MOVES), 6, 7))

    position = live.take_over(MOVES, REPLAY, tracked(rebuilt, MOVES), tracked(live, MOVES))

    assert position == 7
    assert live.history_entries(MOVES) == [entry("a", 1, 1, run_id="r-rebuilt"), entry("c", 1, 5)]
    assert live.documents(MOVES) == []  # the rebuild has none
    assert live.dead_letters(MOVES) == [letter(MOVES, 7)]
    assert live.positions([tracked(live, MOVES)]) == {tracked(live, MOVES): 7}
    # The other projection is as it was.
    assert live.history_entries(VISITS) == [entry("a", 1, 2, VISITS)]
    assert live.dead_letters(VISITS) == [letter(VISITS, 3)]
    # And the rebuild keeps its own.
    assert [e.stream for e in rebuilt.history_entries(MOVES)] == ["a", "c"]


STREAMS = ["ab", "a_b", "a-b", "aB", "a1", "A", "é", "z", "a b", "ä"]


def written_so(store: ReadModelStore) -> None:
    store.apply_history(
        [entry(stream, 1, i) for i, stream in enumerate(STREAMS, 1)],
        [],
        Window(tracked(store, MOVES), 0, len(STREAMS)),
    )


def test_streams_are_told_apart_by_code_point(live: ReadModelStore) -> None:
    written_so(live)

    assert sorted(live.last_entries(MOVES, STREAMS)) == sorted(STREAMS)
    assert [e.position for e in live.history(MOVES, "a-b", 10)] == [3]
    assert [e.position for e in live.history(MOVES, "a_b", 10)] == [2]


@pytest.mark.postgres
def test_streams_are_told_apart_by_code_point_whatever_the_databases_collation() -> None:
    with (
        support.database_sorting_as("en-US") as url,
        Ledger(env=eventsourcing_env(url)) as ledger,
    ):
        store = open_read_model_store(ledger, LIVE)
        written_so(store)

        assert sorted(store.last_entries(MOVES, STREAMS)) == sorted(STREAMS)
        assert [e.stream for e in store.history_entries(MOVES)] == STREAMS
