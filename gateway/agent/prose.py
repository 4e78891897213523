"""The model's prose, checked by code sentence by sentence against what supports it.

What supports a sentence is the code's facts of the run (their numbers, account ids and
words) and the user's own request. Data never does: a number or a name that only a memo
holds proves nothing. A sentence stands only when:

- each number it states is one the facts or the request hold;
- each account id it names (of the ledger's accounts) appears in the facts or the request;
- it does not say the run failed when it committed, nor that it was done when it was not
  (a planner's answer, with no run at all, claims neither; it may say what the assistant
  cannot do: "I cannot close bob's account");
- it states no state of an account (frozen, locked, ...) the facts do not show;
- it does not tell the user to move money or to go somewhere (links, addresses);
- it does not repeat three words in a row of quoted data (the data is shown, quoted,
  beside it) unless the request or the facts hold them too. The quoted texts count as one
  body, in the order shown and in the reverse one: a sentence planted two words a memo
  still reads as a run of words.

Any other sentence is withheld, with every reason found.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from gateway.agent.answer_parts import Withheld

NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
WORD = re.compile(r"[a-z0-9]+(?:[._-][a-z0-9]+)*")
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
FAILURE = re.compile(
    r"\b(fail(ed|s|ure)?|did ?n[o']t|was ?n[o']t|were ?n[o']t|has ?n[o']t|have ?n[o']t"
    r"|could ?n[o']t|can ?n[o']t|cannot|unable|declined|rejected|refused|bounced"
    r"|unsuccessful|reversed|cancell?ed|not (sent|paid|made|completed|processed|done))\b",
    re.IGNORECASE,
)
SUCCESS = re.compile(
    r"\b(done|complete[ds]?|succeed(ed|s)?|success(ful(ly)?)?|went through|committed|executed"
    r"|processed|carried out|sent|paid|transferred|deposited|withdr[ae]wn?|moved|credited"
    r"|debited|refunded)\b",
    re.IGNORECASE,
)
STATE = re.compile(
    r"\b(frozen|freez\w*|lock(ed)?|suspend\w*|block(ed)?|compromised|hacked|under review"
    r"|flagged|closed|overdrawn|overdraft|restricted|disabled)\b",
    re.IGNORECASE,
)
CONTACT = re.compile(
    r"(https?://|www\.|\b[\w.+-]+@[\w-]+\.[\w.]+|\b[\w-]+\.(com|net|org|io|example|info)\b"
    r"|\+?\d[\d ()-]{7,}\d)",
    re.IGNORECASE,
)
MOVE = (
    r"(send|transfer|pay|wire|move|deposit|withdraw|forward|refund|contact|call|email|visit"
    r"|click|reply|log ?in|verify|confirm)"
)
ADVICE = re.compile(
    rf"(^\W*(please\s+|now\s+|then\s+|so\s+)?{MOVE}\b"
    rf"|\b(you should|you must|you need to|you have to|please|i recommend|i suggest|i advise"
    rf"|make sure to|be sure to|remember to|don't forget to)\b.*\b{MOVE}\b"
    rf"|\b(i will|i'll|i am going to|i'm going to|let me|shall i|i can now)\b.*\b{MOVE}\b"
    rf"|\b{MOVE}\b.*\binstead\b)",
    re.IGNORECASE,
)
# What the assistant can or may not do: about itself, not about a run (a planner's refusal).
CAPABILITY = re.compile(
    r"\b(i|we)\s+(cannot|can ?n[o']t|am unable to|are unable to|may not|am not (allowed|able)"
    r"|do ?n[o']t have (a |any )?(function|way|permission))\b",
    re.IGNORECASE,
)
NEGATION = re.compile(r"\b(not|no|nothing|never|none|neither|nor)\b|n't\b", re.IGNORECASE)
FIGURE = re.compile(r"\b(balance|you have|has|holds?|owes?|euros?|eur|cents?)\b|€", re.IGNORECASE)


@dataclass(frozen=True)
class Support:
    """What may support the model's sentences."""

    facts: str  # the code's facts, as text
    request: str  # the user's own words
    data: tuple[str, ...]  # quoted texts: what the model may not repeat as its own
    ids: frozenset[str]  # every id of the records whose histories are read (to recognise one named)
    status: str | None  # the run's status; None for a planner's answer (no run)
    record: str = "account"  # what the domain calls a record, in the reasons


def check(text: str, support: Support) -> tuple[list[str], list[Withheld]]:
    """The sentences that stand, and those withheld with their reasons."""
    kept, withheld = [], []
    known = _numbers(support.facts + "\n" + support.request)
    named = set(WORD.findall((support.facts + "\n" + support.request).lower()))
    own = _grams(support.facts + "\n" + support.request)
    data = _body_grams(support.data) - own
    for sentence in sentences(text):
        reasons = _reasons(sentence, support, known, named, data)
        if reasons:
            withheld.append(Withheld(text=sentence, reason="; ".join(reasons)))
        else:
            kept.append(sentence)
    return kept, withheld


def sentences(text: str) -> list[str]:
    return [piece.strip() for piece in SENTENCE.split(text) if piece and piece.strip()]


def _reasons(
    sentence: str, support: Support, known: set[Decimal], named: set[str], data: set[str]
) -> list[str]:
    reasons = []
    numbers = [n for n in (_decimal(n) for n in NUMBER.findall(sentence)) if n is not None]
    if any(n not in known for n in numbers):
        reasons.append("states an amount or figure that the outcome does not hold")
    capability = CAPABILITY.search(sentence)
    if support.status is None and numbers and FIGURE.search(sentence) and not capability:
        reasons.append(f"states {_a(support.record)}'s figure, but no program read one")
    words = WORD.findall(sentence.lower())
    if any(w in support.ids and w not in named for w in words):
        reasons.append(f"names {_a(support.record)} that the outcome does not show")
    failure, success = FAILURE.search(sentence), SUCCESS.search(sentence)
    if support.status is None and (failure or success) and not capability:
        reasons.append("states how a run went, but no program ran")
    elif support.status == "committed" and failure:
        reasons.append("says something failed, but the run committed")
    elif support.status not in (None, "committed") and success and not _negated(sentence):
        reasons.append(f"says it was done, but the run {support.status}: nothing was written")
    state = STATE.search(sentence)
    if state and state.group(0).lower() not in support.facts.lower():
        reasons.append(f"states {_a(support.record)}'s state that the outcome does not show")
    if CONTACT.search(sentence):
        reasons.append("gives a link or a contact that the outcome does not hold")
    if ADVICE.search(sentence):
        reasons.append("tells you to act; only your own requests move money")
    if data & _grams(sentence):
        reasons.append("repeats quoted data as its own words")
    return reasons


def _negated(sentence: str) -> bool:
    return bool(FAILURE.search(sentence) or NEGATION.search(sentence))


def _numbers(text: str) -> set[Decimal]:
    found = {_decimal(n) for n in NUMBER.findall(text)}
    return {n for n in found if n is not None}


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "")).normalize()
    except InvalidOperation:
        return None


def _body_grams(quotes: tuple[str, ...]) -> set[str]:
    """The runs of words of the quoted texts read as one body, either way round."""
    return _grams(" ".join(quotes)) | _grams(" ".join(reversed(quotes)))


def _grams(text: str, size: int = 3) -> set[str]:
    words = WORD.findall(text.lower())
    return {" ".join(words[i : i + size]) for i in range(len(words) - size + 1)}


def quoted_texts(parts: Iterable[tuple[str, str]]) -> tuple[str, ...]:
    """The texts of (kind, text) pairs that are quoted."""
    return tuple(text for kind, text in parts if kind == "quoted")


def _a(noun: str) -> str:
    """`an account`, `a customer`: the noun with its article."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"
