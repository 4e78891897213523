"""Integrity labels: who wrote each value a use case returns.

Every field of a result model carries one label, declared next to it as the field rules
are (`application.field_rules`):

    counterparty: Annotated[str | None, Fact] = Field(description="The other account.")
    memo: Annotated[str, Text(by="memo_by")] = Field(description="The memo.")

- `Fact`: written by the system itself (ids of accounts, amounts, balances, times,
  versions, kinds): no party chooses its words.
- `Text(by=FIELD)`: written by a party, whose id the model's field FIELD holds (itself a
  fact); `Text(author=WHO)` when one writer always writes it (staff open accounts, so an
  owner's name is staff's).

A field of another result model, or a list of them, takes the labels of that model's
fields. A result model without a label on a field is a definition error when the class is
defined (`ResultModel`); so is a use case whose scalar result carries none
(`perform(...) -> Annotated[Decimal, Fact]`). `label_tree` gives the gateway the labels of
a result type as a tree, what a program's provenance is resolved against.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from application.vocabulary import UseCaseDefinitionError


@dataclass(frozen=True)
class Label:
    """A field's integrity label; compare with `is_text`, `is_fact`."""

    kind: Literal["fact", "text"]
    by: str | None = None  # the field of the same model that names the writer
    author: str | None = None  # a fixed writer, when no field names one

    @property
    def is_text(self) -> bool:
        return self.kind == "text"

    def __repr__(self) -> str:
        if self.kind == "fact":
            return "Fact"
        return f"Text(by={self.by!r})" if self.by else f"Text(author={self.author!r})"


Fact = Label("fact")


def Text(*, by: str | None = None, author: str | None = None) -> Label:  # noqa: N802 (a marker)
    """Text a party wrote: `by` names the field holding the writer, or `author` is fixed."""
    if (by is None) == (author is None):
        raise UseCaseDefinitionError("Text: give by= (a field naming the writer) or author=")
    return Label("text", by=by, author=author)


@dataclass(frozen=True)
class Leaf:
    """A value with one label."""

    label: Label


@dataclass(frozen=True)
class Fields:
    """A result model: each field's tree, by name."""

    name: str
    fields: Mapping[str, Tree]


@dataclass(frozen=True)
class Items:
    """A list: every item has the same tree."""

    item: Tree


Tree = Leaf | Fields | Items


class ResultModel(BaseModel):
    """Base of what use cases return: each field labelled `Fact` or `Text(...)`, or itself a
    result model (or a list of them); checked when a subclass is defined."""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        _model_tree(cls)


def label_tree(owner: str, annotation: Any, *, label: Label | None = None) -> Tree:
    """The labels of a result type, or a UseCaseDefinitionError naming what has none."""
    label = _label_of(annotation) or label
    inner = _unwrapped(annotation)
    if isinstance(inner, type) and issubclass(inner, BaseModel):
        return _model_tree(inner)
    if get_origin(inner) is list and len(get_args(inner)) == 1:
        return Items(label_tree(owner, get_args(inner)[0], label=label))
    if label is None:
        raise UseCaseDefinitionError(
            f"{owner}: no integrity label; mark it Fact or Text(...) in its Annotated[...]"
        )
    return Leaf(label)


def _model_tree(model: type[BaseModel]) -> Fields:
    name = model.__name__
    if not issubclass(model, ResultModel):
        raise UseCaseDefinitionError(
            f"{name}: a result model derives from ResultModel, which checks its labels"
        )
    fields: dict[str, Tree] = {}
    for field, info in model.model_fields.items():
        labels = [item for item in info.metadata if isinstance(item, Label)]
        if len(labels) > 1:
            raise UseCaseDefinitionError(f"{name}.{field}: one integrity label, not {labels}")
        label = labels[0] if labels else None
        if label is not None and label.by is not None and label.by not in model.model_fields:
            raise UseCaseDefinitionError(
                f"{name}.{field}: Text(by={label.by!r}) names no field of {name}"
            )
        fields[field] = label_tree(f"{name}.{field}", info.annotation, label=label)
    return Fields(name, fields)


def _label_of(annotation: Any) -> Label | None:
    if get_origin(annotation) is Annotated:
        labels = [item for item in get_args(annotation)[1:] if isinstance(item, Label)]
        if labels:
            return labels[-1]
        return _label_of(get_args(annotation)[0])
    return None


def _unwrapped(annotation: Any) -> Any:
    """The type under Annotated and Optional."""
    while True:
        if get_origin(annotation) is Annotated:
            annotation = get_args(annotation)[0]
        elif get_origin(annotation) in (Union, types.UnionType):
            inner = [arg for arg in get_args(annotation) if arg is not type(None)]
            if len(inner) != 1:
                return annotation
            annotation = inner[0]
        else:
            return annotation


def labels_in(tree: Tree) -> set[Label]:
    """Every label under a tree."""
    if isinstance(tree, Leaf):
        return {tree.label}
    if isinstance(tree, Items):
        return labels_in(tree.item)
    return set().union(*(labels_in(child) for child in tree.fields.values()))
