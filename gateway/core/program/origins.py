"""A program's sources resolved to origins a person (and a policy) reads: which call, which
field, fact or text, and, once the call has answered, whose text.

A text field names its writer in a field of its own (`Text(by="memo_by")`) or always has
the same one (`Text(author="staff")`): the writers of what a call actually returned are
read from its results (every answer of the call at that place, for a call in a loop).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from application.data_policy import ArgumentOrigins, Origin, OriginLabel
from application.labels import Label, Tree
from gateway.core.program.sources import (
    ITEM,
    SHAPE,
    At,
    Of,
    Source,
    Unknown,
    field_name,
    labels_of,
    leaf_paths,
    subtree,
)


@dataclass(frozen=True)
class CallSite:
    """A use-case call as written: its use case, its place, its result's labels."""

    name: str
    line: int
    column: int
    labels: Tree | None


def resolve(
    sources: Iterable[Source],
    sites: Mapping[str, CallSite],
    results: Mapping[tuple[int, int], Sequence[Any]] | None = None,
    value: Any = None,
) -> ArgumentOrigins:
    """The origins of an argument: one per call, field, label and way (given or chosen),
    with the writers of its text when `results` (each place's answers) are known: of the
    texts that hold the argument's `value` (or that it holds), else of every text there."""

    def trees(call: str) -> Tree | None:
        site = sites.get(call)
        return None if site is None else site.labels

    found: dict[tuple[Any, ...], Origin] = {}
    for source in sources:
        origin = _origin(source, sites, trees, results, value)
        key = (origin.line, origin.column, origin.call, origin.field, origin.label, origin.chosen)
        known = found.get(key)
        if known is not None:
            origin = replace(known, authors=tuple(sorted({*known.authors, *origin.authors})))
        found[key] = origin
    return ArgumentOrigins(tuple(found[key] for key in sorted(found, key=_order)))


def _order(key: tuple[Any, ...]) -> tuple[Any, ...]:
    line, column, call, field, label, chosen = key
    return (chosen, line, column, call, field, label)


def _origin(
    source: Source,
    sites: Mapping[str, CallSite],
    trees: Any,
    results: Mapping[tuple[int, int], Sequence[Any]] | None,
    value: Any,
) -> Origin:
    if isinstance(source, Unknown) or source.call not in sites:
        return Origin("", 0, 0, "", "unknown", chosen=source.chosen)
    site = sites[source.call]
    labels = labels_of(source, trees)
    label: OriginLabel = "fact"
    if labels is not None and any(item.is_text for item in labels):
        label = "text"
    authors: tuple[str, ...] = ()
    if label == "text" and results is not None:
        answers = results.get((site.line, site.column), ())
        written = list(_writers(source, trees, answers))
        holding = [(writer, text) for writer, text in written if _holds(text, value)]
        authors = tuple(sorted({writer for writer, _ in (holding or written)}))
    return Origin(
        site.name,
        site.line,
        site.column,
        field_name(source.path),
        label,
        chosen=source.chosen,
        authors=authors,
    )


def _writers(source: At | Of, trees: Any, answers: Sequence[Any]) -> Iterator[tuple[str, str]]:
    """Who wrote each text under the source's path, in the answers the call gave."""
    path = source.path
    tree = subtree(trees, source)
    while tree is None and path:
        path = path[:-1]  # past a leaf: the leaf
        tree = subtree(trees, Of(source.call, path))
    if tree is None:
        return
    for leaf, label in leaf_paths(tree).items():
        if not label.is_text:
            continue
        full = (*path, *leaf)
        for answer in answers:
            yield from _leaf_writers(answer, full, label)


def _leaf_writers(value: Any, path: tuple[str, ...], label: Label) -> Iterator[tuple[str, str]]:
    """Each non-empty text at `path` in `value` (`[]`: every item), with its writer."""
    parents = list(_walk(value, path[:-1]))
    for parent in parents:
        text = parent.get(path[-1]) if isinstance(parent, dict) else parent
        if not text:
            continue
        if label.author is not None:
            yield label.author, str(text)
        elif label.by is not None and isinstance(parent, dict):
            writer = parent.get(label.by)
            if writer:
                yield str(writer), str(text)


def _holds(text: str, value: Any) -> bool:
    """Whether a text holds the value an argument was given, or the value holds the text."""
    if value is None or isinstance(value, bool):
        return False
    forms = {str(value)}
    if isinstance(value, int | float | Decimal):
        number = Decimal(str(value))
        forms |= {f"{number.normalize():f}", f"{number:.2f}"}
    return any(form and form in text for form in forms) or (
        isinstance(value, str) and text in value
    )


def _walk(value: Any, path: tuple[str, ...]) -> Iterator[Any]:
    if not path:
        yield value
        return
    step, rest = path[0], path[1:]
    if step == ITEM and isinstance(value, list):
        for item in value:
            yield from _walk(item, rest)
    elif step != SHAPE and isinstance(value, dict) and step in value:
        yield from _walk(value[step], rest)
