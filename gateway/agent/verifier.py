"""The code has the last word: a reply that contradicts the outcome does not stand.

The answerer states what its text claims (`success` or `failure`). The outcome decides what
is true: only a committed run succeeded. When the claim and the outcome disagree, the reply
is flagged `corrected`, its text is replaced by one the code writes from the outcome, and the
model's text is kept beside it for the record. The gateway's own fields are never touched.
"""

from __future__ import annotations

from typing import Any

from gateway.agent.structured import ModelAnswer


def expected_claim(status: str) -> str:
    return "success" if status == "committed" else "failure"


def verify(answer: ModelAnswer, outcome: dict[str, Any]) -> dict[str, Any]:
    """`{text, claims, corrected, model_text}`; model_text only when the text was replaced."""
    corrected = answer.claims != expected_claim(str(outcome["status"]))
    return {
        "text": plain_reply(outcome) if corrected else answer.text,
        "claims": answer.claims,
        "corrected": corrected,
        "model_text": answer.text if corrected else None,
    }


def plain_reply(outcome: dict[str, Any]) -> str:
    """What the outcome says, in the code's own words."""
    status = outcome["status"]
    if status == "committed":
        changed = outcome["changed"]
        if changed == "nothing":
            return "Done; nothing needed to be written."
        return f"Done: {changed} events were appended."
    if status == "rejected":
        return "The proposal was rejected; nothing was written."
    if status == "expired":
        return "The proposal expired before it was confirmed; nothing was written."
    return f"The program failed: {outcome.get('error')}; nothing was written."
