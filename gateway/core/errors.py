"""Refusals of the gateway: one hierarchy, each refusal with its kind, from where it is
raised (the policy, the program runner, the sandbox, the facade) to every interface. No
interface has a refusal type of its own: each maps the kind once, at its edge. HTTP, and
MCP-over-HTTP's JSON-RPC errors: `gateway.core.problem`, one table of a kind's status and
title, and its problem type. MCP's tools and resources (`gateway.interfaces.mcp.server`)
and the CLI: the kind named beside the message.

    GatewayError               a request refused: its kind, message, run and place
      ProgramError             a program refused at a stage, which decides its kind
                               (`stage_kind`; `gateway.core.program.errors`)
        CallRefusedError       a use-case call refused, its place not yet known: the
                               sandbox places the program's at the call (a ProgramError);
                               the facade records a direct call's and answers it
      StaleProposalError       a confirmation of a preview that is no longer current
                               (`conflict`, or `wrong-preview-hash`)

A use case's own refusal (a `domain.errors.DomainError`) is kept with its class as
`refusal`, to the edge, which names it (`refusal_name`). A sandbox with no worker free
(`SandboxBusyError`) is no refusal of the program: the facade answers it as `unavailable`."""

from __future__ import annotations

import re
from typing import Any, Literal

from application.inert_text import clip
from application.results import Proposal, StaleConfirmation
from domain.errors import DomainError

# A refusal may quote what it refuses (a value, an exception's text): it is kept and shown
# as printable text of at most this many UTF-8 bytes, the cut marked.
MAX_ERROR_BYTES = 2 * 1024
ErrorKind = Literal[
    "unauthenticated",
    "forbidden",
    "not-found",
    "bad-request",
    "invalid-request",
    "invalid-program",
    "cap-exceeded",
    "refused",
    "conflict",
    "wrong-preview-hash",
    "gone",
    "rate-limited",
    "unavailable",
    "idempotency-key-reused",
    "payload-too-large",
]


class GatewayError(Exception):
    """One clear message; the run that recorded it and the program position, when known.

    The message is made printable and bounded here, whatever it quotes. `refusal` is the
    domain's own error when a use case refused, kept with its class to the edge, which
    names it (`refusal_name`) beside the kind."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        run_id: str | None = None,
        line: int | None = None,
        column: int | None = None,
        step: int | None = None,
        extra: dict[str, Any] | None = None,
        refusal: DomainError | None = None,
    ) -> None:
        message = clip(message, MAX_ERROR_BYTES)
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.run_id = run_id
        self.line = line
        self.column = column
        self.step = step
        self.extra = extra or {}
        self.refusal = refusal

    def __str__(self) -> str:
        if self.step is not None:
            return f"{self.message} (step {self.step})"
        if self.line is not None:
            return f"{self.message} (line {self.line}, column {self.column})"
        return self.message

    @property
    def named_refusal(self) -> str | None:
        """The name of the domain rule that refused (`refusal_name`), when a use case did."""
        return None if self.refusal is None else refusal_name(type(self.refusal))

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"kind": self.kind, "error": str(self)}
        if self.run_id:
            body["run_id"] = self.run_id
        if self.step is not None:
            body["step"] = self.step
        elif self.line is not None:
            body["line"], body["column"] = self.line, self.column
        if self.named_refusal is not None:
            body["refusal"] = self.named_refusal
        return body | self.extra


def refusal_name(refusal: type[DomainError]) -> str:
    """The name callers see for the rule that refused: the domain error's class, less
    `Error`, in kebab case (AccountNotFoundError: `account-not-found`). It stands beside the
    kind, which is the path's own: `refused` (422) for a call, `conflict` for a stale preview."""
    name = refusal.__name__.removesuffix("Error")
    return _WORD_START.sub("-", name).lower()


_WORD_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


class StaleProposalError(GatewayError):
    """Confirming a preview that is no longer the proposal's (a conflict): nothing was
    written. `stale.proposal` is the proposal as it is now: a fresh preview to review and
    confirm when it is pending, or failed when the program now fails. The JSON edges show
    it as the problem's `proposal` (without its outcome)."""

    def __init__(
        self,
        message: str,
        proposal: Proposal,
        *,
        refusal: DomainError | None = None,
        kind: ErrorKind = "conflict",
    ) -> None:
        """`kind` is `conflict` when the store moved on since the preview, and
        `wrong-preview-hash` when the hash given was never (or is no longer) the proposal's
        preview: nothing moved, the caller confirmed something it was not shown."""
        shown = proposal.model_dump(mode="json", exclude={"outcome"})
        super().__init__(
            kind, message, run_id=proposal.id, extra={"proposal": shown}, refusal=refusal
        )
        self.stale = StaleConfirmation(run_id=proposal.id, message=self.message, proposal=proposal)

    @property
    def fresh(self) -> Proposal | None:
        """The fresh preview's proposal, when it waits for a person's confirmation."""
        proposal = self.stale.proposal
        return proposal if proposal.status == "pending" else None


# The stage a program failed at decides who must act, hence the kind of error: the one map
# from a stage to a kind (`stage_kind`).
STAGE_KINDS: dict[str, ErrorKind] = {
    "syntax": "invalid-program",
    "check": "invalid-program",
    "type": "invalid-program",
    "runtime": "invalid-program",
    "sandbox": "invalid-program",
    "denied": "forbidden",
    "limit": "cap-exceeded",
    "refused": "refused",
    "conflict": "conflict",
}


def stage_kind(stage: str) -> ErrorKind:
    """The kind of a refusal at this stage of a program (a call refused: `refused`)."""
    return STAGE_KINDS.get(stage, "refused")
