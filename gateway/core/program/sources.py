"""The sources a program's value may have, and how each kind of expression transforms them.

A source is one of:
- `At(call, path, wrap, chosen)`: the value IS the object at `path` of the result of the
  use-case call `call` (`path` walks the result's label tree: a field name, or `[]` for
  an item of a list), or, with `wrap` > 0, a list of such objects (a comprehension or a
  display of them), `wrap` levels deep. Only such a value may be narrowed again: `x["payee"]`
  of an `At` is the `At` of the field.
- `Of(call, path, chosen)`: the value was computed from the object at `path` (all of it:
  arithmetic, a string method, a dict the program built): it carries every label under it.
  A path ending in `#` is the object's shape (how many items a list has): a fact.
- `Unknown(chosen)`: anything (a function's parameter, an exception, a value the
  analysis cannot follow).

`chosen` marks a source that only chose the value (the condition of an `if`, a loop over
data, an index, a filter) rather than gave it: the value may still be a literal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from application.labels import Fields, Items, Label, Leaf, Tree, labels_in

ITEM = "[]"
SHAPE = "#"
MAX_WRAP = 3


@dataclass(frozen=True)
class At:
    call: str
    path: tuple[str, ...]
    wrap: int = 0
    chosen: bool = False


@dataclass(frozen=True)
class Of:
    call: str
    path: tuple[str, ...]
    chosen: bool = False


@dataclass(frozen=True)
class Unknown:
    chosen: bool = False


Source = At | Of | Unknown
# What a transform needs: the label tree of a call's result, by the call's id.
Trees = Callable[[str], Tree | None]
Transform = Callable[[Source, Trees], Source]


def identity(source: Source, trees: Trees) -> Source:
    return source


def derive(source: Source, trees: Trees) -> Source:
    """Computed from the whole value: no longer narrowed by a field."""
    if isinstance(source, At):
        return Of(source.call, source.path, source.chosen)
    return source


def select(source: Source, trees: Trees) -> Source:
    """What only chooses: a condition, a loop's head, an index."""
    if isinstance(source, At | Of):
        return Of(source.call, source.path, True)
    return Unknown(True)


def shape(source: Source, trees: Trees) -> Source:
    """How many items a list has (`len`, how many times a loop runs): a fact, when the
    value is a list the system returned; computed from it otherwise."""
    if isinstance(source, At) and (source.wrap or isinstance(subtree(trees, source), Items)):
        return Of(source.call, (*source.path, SHAPE), source.chosen)
    return derive(source, trees)


def wrap(source: Source, trees: Trees) -> Source:
    """A list (or tuple) holding the value."""
    if isinstance(source, At):
        if source.wrap < MAX_WRAP:
            return At(source.call, source.path, source.wrap + 1, source.chosen)
        return Of(source.call, source.path, source.chosen)
    return source


def refine(key: str) -> Transform:
    """`value[key]`: a field name, or ITEM for any item of a list (an int, a computed index)."""

    def narrowed(source: Source, trees: Trees) -> Source:
        if not isinstance(source, At):
            return source
        if source.wrap:
            if key == ITEM:
                return At(source.call, source.path, source.wrap - 1, source.chosen)
            return Of(source.call, source.path, source.chosen)
        tree = subtree(trees, source)
        if isinstance(tree, Items) and key == ITEM:
            return At(source.call, (*source.path, ITEM), 0, source.chosen)
        if isinstance(tree, Fields) and key in tree.fields:
            return At(source.call, (*source.path, key), 0, source.chosen)
        return Of(source.call, source.path, source.chosen)

    return narrowed


element = refine(ITEM)


def then(*steps: Transform) -> Transform:
    """The transforms one after the other."""

    def composed(source: Source, trees: Trees) -> Source:
        for step in steps:
            source = step(source, trees)
        return source

    return composed


def subtree(trees: Trees, source: At | Of) -> Tree | None:
    """The label tree at a source's path (None past its end: a leaf's characters)."""
    tree = trees(source.call)
    for step in source.path:
        if tree is None or step == SHAPE:
            return None
        if isinstance(tree, Items) and step == ITEM:
            tree = tree.item
        elif isinstance(tree, Fields) and step in tree.fields:
            tree = tree.fields[step]
        else:
            return None
    return tree


def labels_of(source: At | Of, trees: Trees) -> set[Label] | None:
    """Every label the source's value may carry; None: a shape (a fact of the system)."""
    if source.path and source.path[-1] == SHAPE:
        return None
    tree = subtree(trees, source)
    if tree is None:
        # Past a leaf (a character of a memo): the leaf's labels.
        parent = Of(source.call, source.path[:-1], source.chosen)
        return labels_of(parent, trees) if source.path else set()
    return labels_in(tree)


def field_name(path: tuple[str, ...]) -> str:
    """A path as a person reads it: `counterparty`, `memo`; `` for the whole result;
    `how many` for a list's length."""
    named = ".".join(step for step in path if step not in (ITEM, SHAPE))
    if path and path[-1] == SHAPE:
        return f"{named} (how many)" if named else "how many"
    return named


def leaf_paths(tree: Tree, path: tuple[str, ...] = ()) -> Mapping[tuple[str, ...], Label]:
    """Each leaf's path and label."""
    if isinstance(tree, Leaf):
        return {path: tree.label}
    if isinstance(tree, Items):
        return leaf_paths(tree.item, (*path, ITEM))
    found: dict[tuple[str, ...], Label] = {}
    for name, child in tree.fields.items():
        found.update(leaf_paths(child, (*path, name)))
    return found
