"""The code has the last word: the answer a user reads is made by the code.

For a decided run, the code writes the facts (status, events, balances, result) from the
gateway's outcome and quotes every text a principal wrote with its author
(gateway/agent/facts.py). The model's reply is then checked sentence by sentence against
those facts and the user's request (gateway/agent/prose.py): what they do not support is
withheld, with its reason. The model's own claim (`success` or `failure`) must also agree
with the run's status: a reply that claims the opposite is withheld whole.

A planner's answer (no program ran) states no account facts: a sentence that states a
figure, names an account the user did not, or says how a run went is withheld, and the code
says how to get the figures.
"""

from __future__ import annotations

from application.domains import OwnedWords
from application.results import Outcome, Proposal
from gateway.agent.answer_parts import Answer, AnswerPart, Withheld, assistant, facts
from gateway.agent.authors import Authors
from gateway.agent.facts import run_parts
from gateway.agent.prose import Support, check
from gateway.agent.structured import ModelAnswer


def no_figures(words: OwnedWords) -> str:
    """What stands in for a planner's answer withheld: it read nothing, in the domain's words."""
    return (
        f"The agent answered without running a program, so it read no {words.record}: what "
        f"it said about {words.records} was withheld. Ask it to look them up, and it will "
        "write a program."
    )


DEFAULT_WORDS = OwnedWords()


def expected_claim(status: str) -> str:
    return "success" if status == "committed" else "failure"


def verify(
    answer: ModelAnswer,
    proposal: Proposal,
    outcome: Outcome,
    request: str,
    authors: Authors,
) -> Answer:
    """The answer to a decided run: the code's facts and quotes, then what stands of the model's."""
    parts = run_parts(proposal, outcome, authors)
    support = Support(
        facts="\n".join(part.text for part in parts if part.kind == "facts"),
        request=request,
        data=tuple(part.text for part in parts if part.kind == "quoted"),
        ids=authors.ids,
        status=outcome.status,
        record=authors.words.record,
    )
    kept, withheld = check(answer.text, support)
    if answer.claims != expected_claim(outcome.status):
        why = f"claims {answer.claims}, but the run {outcome.status}"
        withheld = [Withheld(text=t.text, reason=f"{why}; {t.reason}") for t in withheld]
        withheld += [Withheld(text=sentence, reason=why) for sentence in kept]
        kept = []
    if kept:
        parts.append(assistant(" ".join(kept)))
    return Answer(
        parts=tuple(parts),
        claims=answer.claims,
        corrected=bool(withheld),
        withheld=tuple(withheld),
        model_text=answer.text,
    )


def verify_planner_answer(
    text: str, request: str, ids: frozenset[str], words: OwnedWords = DEFAULT_WORDS
) -> Answer:
    """A planner's answer, which no run supports: no figures, no records, no outcomes."""
    support = Support(facts="", request=request, data=(), ids=ids, status=None, record=words.record)
    kept, withheld = check(text, support)
    parts: list[AnswerPart] = [assistant(" ".join(kept))] if kept else []
    if withheld:
        parts.append(facts(no_figures(words)))
    return Answer(
        parts=tuple(parts),
        claims=None,
        corrected=bool(withheld),
        withheld=tuple(withheld),
        model_text=text,
    )
