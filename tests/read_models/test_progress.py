"""A long rebuild or verification says what it is doing until it is done: the live model's
own catching up and the comparison of the rows are reported too, not left under a full bar."""

from __future__ import annotations

from application.bank.read_models import BANK_READ_MODELS
from application.read_models.replay import Replay
from gateway.bootstrap import Sluice
from tests.read_models.names import BANK_PROJECTIONS


def test_a_replay_reports_the_live_models_catching_up_and_each_comparison(sluice: Sluice) -> None:
    head = sluice.read_models.head()
    sluice.read_models.reset()  # the live models are behind: the replay brings them on too
    windows: list[tuple[str, int, int]] = []
    steps: list[str] = []

    results = Replay(sluice.ledger, BANK_READ_MODELS).run(
        from_scratch=True,
        progress=lambda name, position, target, _: windows.append((name, position, target)),
        step=steps.append,
    )

    assert all(result.sound for result in results)
    reported = {name for name, _, _ in windows}
    assert {f"live {name}" for name in BANK_PROJECTIONS} <= reported
    assert ("live balances", head, head) in windows
    assert steps == [f"comparing {name} with the live model" for name in BANK_PROJECTIONS]


def test_verify_reports_the_position_it_has_read_up_to(sluice: Sluice) -> None:
    sluice.read_models.catch_up()
    read: list[tuple[int, int]] = []

    position, checks = sluice.operations.verify(
        sluice.read_models, progress=lambda at, of: read.append((at, of))
    )

    assert all(check.ok for check in checks)
    assert read[-1] == (position, position)
    assert [at for at, _ in read] == sorted(at for at, _ in read)
