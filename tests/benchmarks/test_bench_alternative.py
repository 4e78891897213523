"""`make bench-alternative` prints one line per workload and client count in the contract's
form, `WORKLOAD CLIENTS: sluice N/s, alternative M/s, ratio R`: its smallest configuration,
both servers really served on Postgres. The figures are not checked (benchmarks, not timed
tests); the form and the two servers' answers are."""

from __future__ import annotations

import re

import pytest

from benchmarks import bench_alternative

pytestmark = pytest.mark.postgres

LINE = re.compile(
    r"^(?P<workload>\S+) (?P<clients>\d+): sluice (?P<sluice>\d+)/s, "
    r"alternative (?P<alternative>\d+)/s, ratio (?P<ratio>\d+\.\d\d|inf)$"
)


def test_one_line_per_workload_and_client_count_in_the_contract_form(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Each client's first request, before its turn is timed, must be answered (a 200, or a
    # conflict), or the benchmark fails: both servers answered every workload.
    assert bench_alternative.main(["--seconds", "0.5", "--rounds", "1", "--clients", "1,2"]) == 0

    lines = [line for line in capsys.readouterr().out.splitlines() if LINE.match(line)]
    found = [LINE.match(line) for line in lines]
    assert [(m["workload"], m["clients"]) for m in found if m] == [
        ("transfer", "1"),
        ("transfer", "2"),
        ("balance", "1"),
        ("balance", "2"),
    ]
    for match in found:
        assert match is not None
        sluice, alternative = int(match["sluice"]), int(match["alternative"])
        if alternative == 0:  # a machine so loaded that no request was answered in a turn
            continue
        # The rates are printed rounded to whole numbers, the ratio from the unrounded ones.
        rounding = (sluice + alternative) / alternative**2 / 2 + 0.01
        assert float(match["ratio"]) == pytest.approx(sluice / alternative, abs=rounding)


def test_the_line_reads_as_the_contract_says() -> None:
    assert bench_alternative.line("transfer", 1, 310.2, 190.4) == (
        "transfer 1: sluice 310/s, alternative 190/s, ratio 1.63"
    )
