"""The gateway's results, defined once: a proposal, its preview, an outcome, a call record,
an event record, a run's story, a use case's sheet, and the answer to confirming a stale
preview.

Frozen: a result is what happened, read by attribute. Money inside them is already text
(the use cases' results and events are dumped in JSON mode), so `model_dump(mode="json")`
is what goes on the wire, unchanged.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from application.money_moves import MoneyMove

HASH_EXAMPLE = "9f2c" + "0" * 60


class Result(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class EventRecord(Result):
    """An event, as a preview shows it (no position) or a commit reports it."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "position": 27,
                    "account": "alice",
                    "type": "TransferDebited",
                    "version": 3,
                    "timestamp": "2026-11-29T15:00:34.835113+00:00",
                    "data": {"amount": "12.00", "counterparty": "bob", "memo": "rent"},
                }
            ]
        },
    )
    position: int | None = Field(description="Position in the log; null until committed.")
    account: str | None
    type: str
    version: int | None = Field(
        description="The record's version after the event; null on a record the asking "
        "customer may not see"
    )
    timestamp: str
    data: dict[str, Any]


class LogEvent(EventRecord):
    """An event as the audit log lists it: with the aggregate it belongs to."""

    aggregate_id: str


class OriginRecord(Result):
    """Where a program took an argument from: a use case's answer (the call at a line),
    which field of it, and whether it is a fact of the system or text a party wrote."""

    call: str = Field(description="The use case whose answer it came from; empty: untraced.")
    line: int
    column: int
    field: str = Field(description="The field of that answer; empty for the whole answer.")
    label: Literal["fact", "text", "unknown"] = Field(
        description="fact: written by the system; text: written by a party (see authors); "
        "unknown: a value the gateway cannot trace (a function, an exception)."
    )
    chosen: bool = Field(
        description="The data only chose the value (a condition, a loop, an index, a filter)."
    )
    authors: list[str] = Field(description="For text: who wrote it (record ids, staff).")


class CallRecord(Result):
    """One use case a program called, where, with what, and what it answered."""

    name: str
    arguments: dict[str, Any]
    result: Any
    line: int
    column: int
    events: int
    origins: dict[str, list[OriginRecord]] = Field(
        default={},
        description="Where each argument the program did not write as a literal came from.",
    )

    def to_json(self) -> dict[str, Any]:
        """The call as a run stores it: a call with no traced argument has no `origins`."""
        return self.model_dump(mode="json", exclude={"origins"} if not self.origins else None)


class Preview(Result):
    events: list[EventRecord]
    calls: list[CallRecord]
    result: Any = None
    output: str = ""
    caps: dict[str, Any] = {}
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The preview as a run stores it (and `sluice audit run --json` prints it): the
        fields it was given, a direct call's having no `error`; a call's `origins` only
        when it has some."""
        shown = self.model_dump(mode="json", exclude_unset=True)
        shown["calls"] = [call.to_json() for call in self.calls]
        return shown


POSITION = (
    "On the answer to a write: the log position of its last event; a read given it as "
    "`min_position` sees this write. Null on reads, and on an answer kept for an "
    "Idempotency-Key (kept before its transaction had positions, and replayed as kept)."
)


class Outcome(Result):
    """The gateway's authoritative fields."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "run_id": "5b0c2f1e-0000-4000-8000-000000000000",
                    "status": "committed",
                    "changed": 2,
                    "events": [],
                    "result": {"payer_balance": "90.00"},
                    "error": None,
                }
            ]
        },
    )

    run_id: str | None
    status: str
    changed: int | Literal["nothing"]
    events: list[EventRecord]
    result: Any = None
    error: str | None
    position: int | None = Field(default=None, description=POSITION)


RunStatus = Literal["pending", "committed", "failed", "rejected", "expired"]


class ProposedVia(Result):
    """Who proposed, beyond the principal's name: the key's scope (an agent's key or a
    person's), the interface the proposal came through, and the key's id (as `sluice key
    list` shows it). None where it is not known: a run recorded before it was kept, or a
    principal named at the terminal rather than by a key."""

    scope: Literal["human", "agent"] | None = None
    interface: Literal["http", "mcp", "cli", "console", "agent"] | None = None
    key_id: str | None = None


class Proposal(Result):
    """A proposal; `outcome` holds the gateway's fields once it is decided."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"id": "5b0c2f1e-0000-4000-8000-000000000000", "status": "pending",
                 "principal": "alice", "kind": "program", "language": "python",
                 "source": 'transfer(payer="alice", payee="bob", amount=10)', "request": None,
                 "preview": {"events": [], "calls": [], "result": None, "output": "",
                             "caps": {"transfer": {"used": 1, "limit": 10}}, "error": None},
                 "preview_hash": HASH_EXAMPLE, "expires_at": "2026-11-29T15:15:00+00:00",
                 "created_at": "2026-11-29T15:00:00+00:00", "confirmed_by": None,
                 "decided_by": None, "error": None,
                 "outcome": {"run_id": "5b0c2f1e-0000-4000-8000-000000000000",
                             "status": "pending", "changed": "nothing", "events": [],
                             "result": None, "error": None}}
            ]
        },
    )  # fmt: skip
    id: str
    status: RunStatus
    principal: str
    kind: str
    language: str
    source: str
    request: str | None
    preview: Preview
    preview_hash: str
    expires_at: str
    created_at: str
    confirmed_by: str | None
    confirmed_at: str | None = Field(
        default=None, description="When it was confirmed (its Confirmed event's time)."
    )
    decided_by: str | None
    decided_at: str | None = Field(
        default=None, description="When it ended: committed, failed, rejected or expired."
    )
    error: str | None
    outcome: Outcome
    proposed_via: ProposedVia | None = None
    # For a pending proposal read on its own: the accounts it read or would write that have
    # moved since its preview (a confirmation would meet a conflict); [] when current.
    moved_since_preview: list[str] | None = None

    proposed_by: str = Field(
        default="",
        description="Who proposed it, in words: a person (`alice (key f18e977785bc, over "
        "console)`) or a person's agent (`alice's agent (key 0c1d2e3f4a5b, over mcp)`).",
    )
    request_by: str | None = Field(
        default=None,
        description="Whose words `request` is: the person's, or their agent's (`alice's "
        "agent`), which an agent wrote and no person has vouched for.",
    )
    moves: list[MoneyMove] = Field(
        default=[], description="The money its preview moves: payer, payee, amount, currency."
    )
    reads_only: bool = Field(
        default=False,
        description="Its preview appends no event: a read, which writes nothing and needs no "
        "decision.",
    )

    def proposer(self) -> str:
        """Who proposed it, in words (`proposed_by`)."""
        return self.proposed_by or self.principal

    position: int | None = Field(default=None, description=POSITION)


def proposer_words(principal: str, via: ProposedVia | None, *, detail: bool = True) -> str:
    """Who proposed, in words: `alice's agent (key 0c1d2e3f4a5b, over mcp)` for an agent's
    key, `alice, through Sluice's agent` for Sluice's own agent acting on a person's words,
    `alice (key f18e977785bc, over console)` for a person; without `detail`, no key id."""
    if via is None:
        return principal
    if via.scope == "agent":
        who = f"{principal}'s agent"
    elif via.interface == "agent":
        return f"{principal}, through Sluice's agent"
    else:
        who = principal
    parts = [f"key {via.key_id}" if detail and via.key_id else "", via.interface or ""]
    parts[1] = f"over {parts[1]}" if parts[1] else ""
    said = ", ".join(part for part in parts if part)
    return f"{who} ({said})" if said else who


def request_author(principal: str, via: ProposedVia | None) -> str:
    """Whose words a proposal's request is: an agent key's proposal carries its agent's."""
    return f"{principal}'s agent" if via is not None and via.scope == "agent" else principal


class HistoryEntry(Result):
    """One event of a run: what happened to it (Proposed, Confirmed, Committed, ...), when."""

    type: str
    timestamp: str


class RunStory(Proposal):
    """A run as an auditor reads it: the proposal, its outcome, and every event of the run.

    One type for every interface: HTTP answers it as it dumps; `sluice audit run` shows it,
    with the events the run committed as the store names them (`committed_events`: key,
    aggregate id, version, type), which HTTP leaves out."""

    history: list[HistoryEntry]
    committed_events: list[dict[str, Any]] = Field(default=[], exclude=True)


class Sheet(Result):
    """A use case's sheet: what it does and the JSON Schemas of its parameters and result."""

    # The two schemas are JSON Schema documents: free JSON, so plain dicts, not models.
    name: str
    description: str
    kind: Literal["read", "write"]
    parameters: dict[str, Any] = Field(description="JSON Schema of the arguments.")
    returns: dict[str, Any] = Field(description="JSON Schema of the result.")


class StaleConfirmation(Result):
    """Confirming a preview that is no longer the proposal's: nothing was written; when the
    program still runs, `proposal` holds the fresh preview to review and confirm."""

    run_id: str
    message: str
    proposal: Proposal
