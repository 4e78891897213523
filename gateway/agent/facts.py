"""The facts of a run, written by the code from the gateway's typed outcome: its status,
each event and the program's result, as the domain tells them (`Domain.telling`,
application/telling.py). Every text in them that a principal wrote, or that the code cannot
vouch for, becomes a quoted part with its author (gateway/agent/authors.py); nothing the
data says is put in the code's words.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import Any

from application.results import EventRecord, Outcome, Proposal
from application.telling import Said, Telling, Told, scalar
from gateway.agent.answer_parts import PROGRAM, SLUICE, AnswerPart, facts, quoted
from gateway.agent.authors import Authors

LABEL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,39}$")


def status_line(outcome: Outcome) -> str:
    status = outcome.status
    if status == "committed":
        count = len(outcome.events)
        if not count:
            return "Ran and read; nothing was written."
        return f"Committed: {count} event{'s' if count > 1 else ''} appended."
    if status == "failed":
        return "Failed; nothing was written."
    if status == "rejected":
        return "Rejected; nothing was written."
    if status == "expired":
        return "Expired before it was confirmed; nothing was written."
    return "Waiting for your confirmation; nothing is written yet."


def run_parts(proposal: Proposal, outcome: Outcome, authors: Authors) -> list[AnswerPart]:
    """The code's account of a decided run, with the data in it quoted."""
    authors.learn(_records(proposal, outcome, authors))
    authors.learn_results(proposal.preview.calls)
    parts = [facts(status_line(outcome))]
    if outcome.status == "failed" and outcome.error:
        parts.append(quoted(outcome.error, SLUICE, "error"))
    for event in outcome.events:
        parts += event_parts(event, authors)
    if outcome.status == "committed" and outcome.result is not None:
        parts += _Result(authors, _literals(proposal.source)).parts(outcome.result)
    return parts


def event_parts(event: EventRecord, authors: Authors) -> list[AnswerPart]:
    """An event as the domain tells it (application/telling.py), else as `key: Type`."""
    told = authors.telling.event(event, authors)
    if told is None:
        return [facts(f"{event.account or 'a record'}: {event.type}")]
    return parts_of(told)


def parts_of(told: list[Told]) -> list[AnswerPart]:
    """A domain's telling as the answer's parts: its words as facts, its quotes quoted."""
    return [
        facts(item.text) if isinstance(item, Said) else quoted(item.text, item.writer, item.what)
        for item in told
    ]


class _Result:
    """The program's result: known shapes in the code's words, any other text quoted."""

    def __init__(self, authors: Authors, literals: frozenset[str]) -> None:
        self.authors = authors
        self.literals = literals
        self.telling: Telling = authors.telling

    def parts(self, result: Any) -> list[AnswerPart]:
        if isinstance(result, list):
            noun = "entry" if len(result) == 1 else "entries"
            head = [facts(f"Result: {len(result)} {noun}")]
            return head + [p for item in result for p in self._item(item, "result")]
        plain = scalar(result)
        if plain is not None:
            return [facts(f"Result: {plain}")]
        return [facts("Result:"), *self._item(result, "result")]

    def _item(self, value: Any, path: str) -> list[AnswerPart]:
        plain = scalar(value)
        if plain is not None:
            return [facts(f"{path}: {plain}")]
        if isinstance(value, str):
            return [self._quote(value, path)]
        if isinstance(value, list):
            return [p for i, item in enumerate(value) for p in self._item(item, f"{path}[{i}]")]
        if isinstance(value, dict):
            return self._known(value) or self._fields(value, path)
        return [self._quote(str(value), path)]

    def _known(self, value: dict[str, Any]) -> list[AnswerPart]:
        """A result of a shape the domain knows, when every field is what it says."""
        return parts_of(self.telling.shape(value, self.authors, self.telling))

    def _fields(self, value: dict[str, Any], path: str) -> list[AnswerPart]:
        parts: list[AnswerPart] = []
        for key, item in value.items():
            name = str(key)
            if LABEL.match(name) and self.authors.of(name) is None:
                label = f"{path}.{name}"
            else:
                parts.append(self._quote(name, f"a key of {path}"))
                label = f"{path}[that key]"
            if self.telling.is_plain_word(name) and self.telling.plain(
                {name: item}, (), self.authors
            ):
                parts.append(facts(f"{label}: {item}"))
            else:
                parts += self._item(item, label)
        return parts

    def _quote(self, text: str, path: str) -> AnswerPart:
        if self.authors.is_fact(text):  # a result's label says the system wrote it
            return facts(f"{path}: {text}")
        writer = self.authors.of(text)
        if writer is None and text in self.literals:
            writer = PROGRAM
        return quoted(text, writer, path)


def _literals(source: str) -> frozenset[str]:
    """The string constants of the program's source (a plan is JSON: its strings)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset(re.findall(r'"([^"\\]*)"', source))
    return frozenset(
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def _records(proposal: Proposal, outcome: Outcome, authors: Authors) -> Iterator[str]:
    """The records whose histories may hold the run's texts: those its calls named (it read
    or wrote them; bounded by the call caps) and those its events changed. A listing's
    owners and a payment's payer need none: their shape says who wrote them."""
    for call in proposal.preview.calls:
        yield from _strings(call.arguments, authors)
    for event in outcome.events:
        if event.account:
            yield event.account


def _strings(value: Any, authors: Authors) -> Iterator[str]:
    if isinstance(value, str):
        if authors.is_id(value):
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, authors)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, authors)
