"""Asking the person behind an MCP client to review one exact preview.

Two kinds of question. By default a link (URL-mode elicitation) to the web console's review
page of that run, where the person signs in with their own key and decides: the client's
answer to a link only says whether it was opened, so it decides nothing. On a client the
operator trusts, with a person's key, a form whose acceptance commits that preview.

Two eras of the protocol ask differently: up to 2025-11-25 the server sends an
`elicitation/create` request mid-call; from 2026-07-28 the tool returns an
`InputRequiredResult` and the client calls again with the answer. Both carry the same
question.
"""

from __future__ import annotations

import json
import secrets
from typing import Literal

from mcp_types import (
    ClientCapabilities,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequiredResult,
)
from mcp_types.version import is_version_at_least

from application.inert_text import inert
from application.money_moves import move_words
from application.results import Proposal
from gateway.core.origins_shown import origin_lines

# The first revision whose tools ask for input by returning an InputRequiredResult.
INPUT_REQUIRED_VERSION = "2026-07-28"
QUESTION = "confirm"
# How each line the program printed starts in the question: no line of the gateway's does.
QUOTE = "  | "
# A question whose answer decides (a form), or one that sends the person to the console.
Kind = Literal["form", "url"]
FORM_CLOSING = "Tick the box and accept to commit exactly these events; decline to discard them."
LINK_CLOSING = (
    "Open the link, sign in with your own key, and confirm or reject it there. "
    "Accepting here opens the page; it confirms nothing."
)


def asks_by_result(protocol_version: str | None) -> bool:
    return protocol_version is not None and is_version_at_least(
        protocol_version, INPUT_REQUIRED_VERSION
    )


def can_ask(kind: Kind, capabilities: ClientCapabilities | None) -> bool:
    """True when the client declared this kind of elicitation (a bare `elicitation: {}`
    declares forms only, as before URL mode existed)."""
    elicitation = capabilities.elicitation if capabilities is not None else None
    if elicitation is None:
        return False
    if kind == "url":
        return elicitation.url is not None
    return elicitation.form is not None or elicitation.url is None


def link(proposal: Proposal, review_url: str) -> ElicitRequestURLParams:
    """The question by default: the effects in words, and the console's review page."""
    return ElicitRequestURLParams(
        mode="url",
        message=describe(proposal, review_url, LINK_CLOSING),
        url=review_url,
        # Unique to this question; the client treats it as opaque.
        elicitation_id=f"{proposal.id}.{secrets.token_urlsafe(8)}",
    )


def question(
    kind: Kind, proposal: Proposal, review_url: str | None
) -> ElicitRequestFormParams | ElicitRequestURLParams:
    if kind == "form":
        return form(proposal, review_url)
    assert review_url is not None, "a link is asked only where there is a console"
    return link(proposal, review_url)


def form(proposal: Proposal, review_url: str | None) -> ElicitRequestFormParams:
    """The question on a trusted client: the effects in words, and one box to tick to
    commit exactly them."""
    count = len(proposal.preview.events)
    return ElicitRequestFormParams(
        message=describe(proposal, review_url, FORM_CLOSING),
        requested_schema={
            "type": "object",
            "properties": {
                QUESTION: {
                    "type": "boolean",
                    "title": f"Commit these {count} events",
                    "description": (
                        f"Append exactly the events of preview {proposal.preview_hash[:12]}, "
                        "all or nothing. Leave unticked, or decline, to write nothing."
                    ),
                    "default": False,
                }
            },
            "required": [QUESTION],
        },
    )


def input_required(kind: Kind, proposal: Proposal, review_url: str | None) -> InputRequiredResult:
    """The 2026-07-28 way to ask; `request_state` names the proposal, the preview shown and
    the kind of question (sealed by the SDK: the client can neither read nor alter it)."""
    state = json.dumps({"run": proposal.id, "preview_hash": proposal.preview_hash, "kind": kind})
    return InputRequiredResult(
        input_requests={QUESTION: ElicitRequest(params=question(kind, proposal, review_url))},
        request_state=state,
    )


def shown(request_state: str) -> tuple[str, str, Kind]:
    """(run id, preview hash, kind of question) asked in the previous round."""
    try:
        state = json.loads(request_state)
        run, preview_hash = str(state["run"]), str(state["preview_hash"])
    except (ValueError, KeyError, TypeError):
        raise ValueError("request_state does not name a proposal this server asked about") from None
    # Only a question this server asked as a form is answered as one.
    return run, preview_hash, "form" if state.get("kind") == "form" else "url"


def accepted(answer: ElicitResult | None) -> bool | None:
    """True: commit. False: the person said no. None: no answer yet (cancelled or absent)."""
    if answer is None or answer.action == "cancel":
        return None
    if answer.action == "decline":
        return False
    return bool((answer.content or {}).get(QUESTION) is True)


def describe(proposal: Proposal, review_url: str | None, closing: str) -> str:
    """The preview as a person reads it, before deciding.

    Every value is inert (control characters written as escapes), and what the program
    printed is quoted apart: under its own heading, each of its lines starts with `  | `,
    which none of the gateway's own lines does. So printed text cannot pass for the
    gateway's words, such as a second "would append 0 events"."""
    preview = proposal.preview
    events = preview.events
    lines = []
    if proposal.moves:
        moves = "; ".join(move_words(move) for move in proposal.moves)
        lines.append(f"Money it moves: {inert(moves)}.")
    if proposal.request:  # whose words they are: an agent's are not a fact
        lines.append(f"{inert(str(proposal.request_by))} wrote: “{inert(proposal.request)}”")
    lines.append(
        f"A program by {inert(proposal.proposer())} would append {len(events)} events, "
        "all or nothing:"
    )
    for number, event in enumerate(events, 1):
        data = event.data
        parts = [f"{number}. {inert(str(event.account))}: {inert(event.type)}"]
        if "amount" in data:
            parts.append(f"{inert(str(data['amount']))} EUR")
        if data.get("counterparty"):
            parts.append(f"counterparty {inert(str(data['counterparty']))}")
        if data.get("memo"):
            parts.append(f'memo "{inert(str(data["memo"]))}"')
        lines.append("  " + ", ".join(parts))
    origins = origin_lines(preview)
    if origins:
        lines.append("Where the program took the values it did not write itself:")
        lines.extend(f"  {inert(origin.sentence())}" for origin in origins)
    lines.append(f"Result: {inert(json.dumps(preview.result, ensure_ascii=False))}")
    if preview.output:
        lines.append(
            f"Printed by the program (its own text, not Sluice's; each line after {QUOTE.strip()}):"
        )
        printed = inert(preview.output.rstrip("\n"), lines=True)
        lines.extend(QUOTE + line for line in printed.split("\n"))
    lines.append(
        f"Preview {proposal.preview_hash[:12]}, proposal {proposal.id}, "
        f"expires {proposal.expires_at}."
    )
    if review_url is not None:
        lines.append(f"Review it in the web console: {review_url}")
    lines.append(closing)
    return "\n".join(lines)
