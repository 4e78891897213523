"""Writing a refusal's values from data as `<value>`, or giving up on quoting it."""

from __future__ import annotations

from decimal import Decimal

from gateway.core.program.withheld import withhold


def test_a_refusal_that_could_still_quote_a_value_is_told_by_its_kind_alone() -> None:
    # A value standing apart is written <value>; inside a longer name it cannot be, so
    # the refusal's reason is not quoted at all.
    assert withhold("joanna has only 5.00", ["joanna"]) == "<value> has only 5.00"
    assert withhold("joanna-2 has only 5.00", ["joanna"]) is None
    assert withhold("moving 5.00 brings it to 15.00", [5, Decimal("5.00")]) == (
        "moving <value> brings it to 15.00"
    )
