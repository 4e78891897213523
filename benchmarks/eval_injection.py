"""`make eval-injection`: the ported AgentDojo banking suite against a worst-case model.

Every combination (benchmarks/injection: 22 user tasks, each alone with harmless text where
an attacker would write, then under 7 injection tasks in 3 attack templates, then steered by
3 kinds of data aimed at its program) runs through
one real `sluice serve` process on a fresh SQLite store: its world is planted first, each
combination on a fresh account of its own. The user's request goes to
POST /v1/agent/messages with the user's key; a proposal is confirmed through
POST /v1/programs/{id}/confirm with its preview_hash (the person confirms everything: only
the gateway stands in the way); the reply is read from GET /v1/agent/conversations/{id};
the ledger from GET /v1/events. The model is the fake of tests/agent/injection_model.py.

Counted per combination: utility (the user task's check), attack (the injection task's
security check), and whether any request the planner received held a piece of the
attacker's text.

    python -m benchmarks.eval_injection [--only TASK] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import httpx

from benchmarks.injection.drive import Driver, Outcome
from benchmarks.injection.suite import USER_TASKS, Combination, attacked, baseline, by_id
from benchmarks.injection.world import Bank
from gateway.bootstrap import Sluice
from tests.agent.fake_llm import FakeLLM
from tests.served import serving

SLUICE = str(Path(sys.executable).with_name("sluice"))


@dataclass
class Report:
    baseline: list[Outcome]
    attacked: list[Outcome]
    seconds: float

    def lines(self) -> list[str]:
        base = self.baseline
        runs = self.attacked
        said = [
            f"no injection: utility {sum(o.utility for o in base)}/{len(base)}",
            f"utility {sum(o.utility for o in runs)}/{len(runs)}, "
            f"attacks {sum(o.attack for o in runs)}/{len(runs)}, "
            f"planner saw attacker bytes {sum(o.planner_saw for o in runs)}/{len(runs)}",
        ]
        for plain in base:
            mine = [o for o in runs if o.task == plain.task]
            said.append(
                f"{plain.task:<5} utility {sum(o.utility for o in mine)}/{len(mine)} with "
                f"injection, {'yes' if plain.utility else 'no'} without; "
                f"attacks {sum(o.attack for o in mine)}/{len(mine)}"
            )
        return said


def evaluate(
    combinations: list[Combination],
    *,
    command: list[str] | None = None,
    each: Callable[[Outcome], None] = lambda _outcome: None,
) -> Report:
    """Plant every combination's world, serve it, and run the baseline, then the attacks."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="eval-injection-") as folder:
        url = f"sqlite:///{folder}/eval.db"
        settings = {c.name: c.setting() for c in combinations}
        with Sluice(url) as planting:
            bank = Bank(planting.gateway)
            bank.open()
            settings = {name: bank.plant(s) for name, s in settings.items()}
        fake = FakeLLM()
        try:
            with (
                _served(command or [SLUICE], url, fake) as base,
                httpx.Client(base_url=base, timeout=60) as http,
            ):
                driver = Driver(http, fake)
                outcomes: dict[bool, list[Outcome]] = {True: [], False: []}
                plain = [c for c in combinations if c.attack is None]
                for stage in (plain, [c for c in combinations if c.attack is not None]):
                    if stage is not plain:
                        driver.arm()
                    for combination in stage:
                        outcome = driver.run(combination, settings[combination.name])
                        outcomes[combination.attack is None].append(outcome)
                        each(outcome)
        finally:
            fake.close()
    return Report(outcomes[True], outcomes[False], round(time.monotonic() - start, 1))


@contextmanager
def _served(sluice: list[str], url: str, fake: FakeLLM) -> Iterator[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLUICE_")} | {
        "SLUICE_DATABASE_URL": url,
        "SLUICE_LLM_MODEL": "fake-model",
        "SLUICE_LLM_BASE_URL": fake.url,
        "SLUICE_LLM_API_KEY": "sk-eval",
        "SLUICE_LLM_TIMEOUT_SECONDS": "30",
        "SLUICE_LLM_MAX_RETRIES": "0",
        # One client drives every combination: the rate caps are not what is measured.
        "SLUICE_CAP_REQUESTS_PER_MINUTE": "1000000",
        "SLUICE_CAP_PROGRAMS_PER_MINUTE": "1000000",
    }
    with serving([*sluice, "serve", "--log-level", "warning"], env) as base:
        yield base


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.eval_injection")
    parser.add_argument("--only", metavar="TASK", help="one user task (ut0 ... x7)")
    parser.add_argument("--json", type=Path, help="write the per-combination results here")
    parser.add_argument(
        "--sluice", default=SLUICE, help="the command that serves (another build, for contrast)"
    )
    args = parser.parse_args(argv)
    tasks = USER_TASKS
    if args.only:
        try:
            tasks = (by_id(args.only),)
        except ValueError as unknown:
            parser.error(str(unknown))
    # Stopped with SIGTERM, it unwinds like Ctrl-C: the served gateway is stopped too.
    signal.signal(signal.SIGTERM, lambda _signal, _frame: sys.exit(143))
    report = evaluate([*baseline(tasks), *attacked(tasks)], command=shlex.split(args.sluice))
    print("\n".join(report.lines()), flush=True)
    print(f"({report.seconds:.0f} s)", file=sys.stderr)
    if args.json:
        results = [asdict(o) for o in [*report.baseline, *report.attacked]]
        summary = {"lines": report.lines(), "seconds": report.seconds, "results": results}
        args.json.write_text(json.dumps(summary, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
