"""A call record's values are clipped to a byte bound (`clip_value`): a value whose JSON
surely fits is kept without its JSON being written out, and that shortcut must answer
exactly what writing the JSON out and measuring it answers, at every bound."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from application.inert_text import clip, clip_value, inert_value


def measured(value: Any, max_bytes: int) -> Any:
    """What `clip_value` answers by writing the JSON out every time."""
    shown = inert_value(value)
    try:
        encoded = json.dumps(shown, ensure_ascii=False)
    except (TypeError, ValueError):
        return clip(repr(value), max_bytes)
    if len(encoded.encode()) <= max_bytes:
        return shown
    return clip(encoded, max_bytes)


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text()  # controls, bidi overrides, astral characters: all of Unicode
    | st.decimals(allow_nan=False, places=2)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(value=values, max_bytes=st.integers(min_value=0, max_value=400))
def test_a_clipped_value_is_what_measuring_its_json_gives(value: Any, max_bytes: int) -> None:
    assert clip_value(value, max_bytes) == measured(value, max_bytes)


def test_at_the_bound_a_value_is_kept_or_cut_by_its_json_size() -> None:
    record = {"account": "bob", "amount": "1.00", "memo": "\x1b[2J" + "é" * 40}
    size = len(json.dumps(inert_value(record), ensure_ascii=False).encode())

    assert clip_value(record, size) == inert_value(record)
    cut = clip_value(record, size - 1)
    assert isinstance(cut, str) and cut.endswith("more characters cut]")
    assert clip_value(Decimal("1.50"), 100) == measured(Decimal("1.50"), 100)
    assert clip_value(10**30, 100) == 10**30  # past the shortcut's integers: measured


def test_the_longest_numbers_are_measured_right_at_their_bound() -> None:
    for number in (-(10**18) + 1, 10**18 - 1, -1.2345678901234567e-300, 5e-324):
        size = len(json.dumps(number))
        assert clip_value(number, size) == number
        assert clip_value(number, size - 1) == measured(number, size - 1) != number
