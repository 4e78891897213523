"""Programs committed as production commits them: proposed, then confirmed (`Proposals`).

For tests that run programs on a bare ledger (no principals registered): one person with
every permission proposes and confirms. A refused program, or a confirmation refused with
a conflict, is a failed `Outcome` carrying the gateway's error and kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from application.ledger import Ledger
from application.principals import PrincipalView
from gateway.core.errors import ErrorKind, GatewayError
from gateway.core.policy.caps import Caps
from gateway.core.program.runner import ProgramRunner
from gateway.core.proposals import Proposals
from tests.conftest import TEST_CAPS, balances

PERSON = PrincipalView(name="tester", role="admin", owns=frozenset())
RUN_TOPIC = "domain.run:Run."


@dataclass(frozen=True)
class Outcome:
    """What a program did, as the HTTP API reports it, less the run id."""

    status: Literal["committed", "failed"]
    events: list[dict[str, Any]] = field(default_factory=list)
    result: Any = None
    error: str | None = None
    # The gateway's kind of refusal (refused, invalid-program, conflict, ...), when failed.
    kind: ErrorKind | None = None

    @property
    def changed(self) -> Literal["nothing"] | int:
        if self.status != "committed" or not self.events:
            return "nothing"
        return len(self.events)

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "changed": self.changed,
            "events": self.events,
            "result": self.result,
            "error": self.error,
        }


class Programs:
    """One person's programs on the runner's ledger, through the production commit path."""

    def __init__(self, runner: ProgramRunner, caps: Caps = TEST_CAPS) -> None:
        self.proposals = Proposals(runner.ledger, runner.catalog, runner, caps)

    def propose(self, source: str) -> dict[str, Any]:
        """The proposal and its preview; a refused program raises GatewayError."""
        return self.proposals.propose(PERSON, "python", source).model_dump(mode="json")

    def confirm(self, proposal: dict[str, Any]) -> Outcome:
        try:
            confirmed = self.proposals.confirm(PERSON, proposal["id"], proposal["preview_hash"])
        except GatewayError as refused:
            return _failed(refused)
        outcome = confirmed.model_dump(mode="json")
        return Outcome(
            status=outcome["status"],
            events=outcome["events"],
            result=outcome["result"],
            error=outcome["error"],
        )

    def run(self, source: str) -> Outcome:
        """Propose, then confirm the preview at once."""
        try:
            proposal = self.propose(source)
        except GatewayError as refused:
            return _failed(refused)
        return self.confirm(proposal)


def _failed(refused: GatewayError) -> Outcome:
    return Outcome(status="failed", error=str(refused), kind=refused.kind)


def store_state_but_runs(ledger: Ledger) -> tuple[int | None, dict[str, Decimal]]:
    """What a program that writes nothing must leave untouched: the position of the last
    record that is not a run's (every program leaves its run, the audit record), and every
    balance."""
    notes = ledger.recorder.select_notifications(1, 1_000_000)
    last = max((n.id for n in notes if not n.topic.startswith(RUN_TOPIC)), default=None)
    return last, balances(ledger)
