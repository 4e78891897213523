"""The sliding window against an exact log of admission times (hypothesis): it never admits
more than the cap within 60 s, refuses only what an exact window 0.5 s longer would refuse,
and its wait is when that exact window would admit again."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from application.rate_window import SLOT_SECONDS, WINDOW_SECONDS, Window

GAPS = st.lists(st.floats(min_value=0, max_value=20, allow_nan=False), min_size=1, max_size=200)


@settings(max_examples=200, deadline=None)
@given(gaps=GAPS, cap=st.integers(min_value=1, max_value=8), start=st.floats(0, 1e9))
def test_the_window_keeps_the_cap_of_exact_times(gaps: list[float], cap: int, start: float) -> None:
    window = Window.empty(start)
    log: list[float] = []  # the admissions, exactly
    now = start
    for gap in gaps:
        now += gap
        window, wait = window.admit(now, cap)
        within_minute = [t for t in log if t > now - WINDOW_SECONDS]
        within_slot_more = [t for t in log if t > now - WINDOW_SECONDS - SLOT_SECONDS]
        if wait is None:
            # No 60 s ever holds more than the cap.
            assert len(within_minute) < cap
            log.append(now)
        else:
            # Refused only when a window at most one slot longer holds the cap already,
            assert len(within_slot_more) >= cap
            # and told to wait no longer than that window needs, nor less than 60 s needs.
            assert 0 < wait <= WINDOW_SECONDS + SLOT_SECONDS
            oldest_needed = sorted(within_slot_more)[len(within_slot_more) - cap]
            assert oldest_needed + WINDOW_SECONDS - now <= wait + 1e-6
            assert wait <= oldest_needed + WINDOW_SECONDS + SLOT_SECONDS - now + 1e-6
