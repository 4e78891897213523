"""Typed Python stubs of the use cases: what programs are type-checked against."""

from __future__ import annotations

import types
from collections.abc import Iterable
from decimal import Decimal
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from application.use_case import UseCase

HEADER = "from decimal import Decimal\nfrom typing import Literal, TypedDict\n"
# A program may write an amount as 10, 10.5 or a Decimal it was given; never as text.
DECIMAL_PARAMETER = "Decimal | int | float"


def render_stubs(use_cases: Iterable[type[UseCase[Any]]], *, documented: bool = False) -> str:
    """The stubs programs are type-checked against; `documented`: with each use case's whole
    description and an `Args:` section, for a planner that reads the stubs as its catalog."""
    views: dict[str, type[BaseModel]] = {}
    functions = []
    for use_case in use_cases:
        returns = _annotation(use_case.result_type(), views, parameter=False)
        functions.append(_function(use_case, returns, documented=documented))
    classes: dict[str, str] = {}
    for view in list(views.values()):
        _define(view, views, classes)
    return "\n\n".join([HEADER, *classes.values(), *functions]) + "\n"


def _define(
    view: type[BaseModel], views: dict[str, type[BaseModel]], classes: dict[str, str]
) -> None:
    """Define `view` once, after every model its fields refer to (nested, in a list, optional),
    so a result's stubs never name a class they do not define."""
    if view.__name__ in classes:
        return
    classes[view.__name__] = ""  # being defined: a model that refers back to it stops here
    referred: dict[str, type[BaseModel]] = {}
    text = _typed_dict(view, referred)
    for name, model in referred.items():
        _define(views.setdefault(name, model), views, classes)
    del classes[view.__name__]
    classes[view.__name__] = text


def _function(use_case: type[UseCase[Any]], returns: str, *, documented: bool) -> str:
    params = []
    for field, info in use_case.model_fields.items():
        annotation = _annotation(info.annotation, {}, parameter=True)
        if info.is_required():
            params.append(f"{field}: {annotation}")
        else:
            params.append(f"{field}: {annotation} = {_default(info.default)}")
    signature = ", ".join(["*", *params]) if params else ""
    doc = (_docstring(use_case) if documented else use_case.summary()).replace('"""', "'''")
    return f'def {use_case.name}({signature}) -> {returns}:\n    """{doc}"""\n    ...\n'


def _docstring(use_case: type[UseCase[Any]]) -> str:
    lines = use_case.description().splitlines()
    if use_case.model_fields:
        lines += ["", "Args:"]
        for field, info in use_case.model_fields.items():
            policy = use_case.guarded.get(field)
            note = f" {policy.note_for(field)}" if policy is not None else ""
            lines.append(f"    {field}: {info.description}{note}")
    return "\n".join(f"    {line}" if line else "" for line in lines).lstrip()


def _typed_dict(view: type[BaseModel], views: dict[str, type[BaseModel]]) -> str:
    lines = [f"class {view.__name__}(TypedDict):", f'    """{(view.__doc__ or "").strip()}"""']
    for field, info in view.model_fields.items():
        lines.append(f"    {field}: {_annotation(info.annotation, views, parameter=False)}")
    return "\n".join(lines) + "\n"


def _annotation(annotation: Any, views: dict[str, type[BaseModel]], *, parameter: bool) -> str:
    origin = get_origin(annotation)
    if origin is Annotated:
        return _annotation(get_args(annotation)[0], views, parameter=parameter)
    if annotation is None or annotation is type(None):
        return "None"
    if annotation is Decimal:
        return DECIMAL_PARAMETER if parameter else "Decimal"
    if annotation in (str, int, bool):
        return str(annotation.__name__)
    if origin is Literal:
        return "Literal[" + ", ".join(repr(arg) for arg in get_args(annotation)) + "]"
    if origin in (Union, types.UnionType):
        return " | ".join(
            _annotation(arg, views, parameter=parameter) for arg in get_args(annotation)
        )
    if origin is list:
        return f"list[{_annotation(get_args(annotation)[0], views, parameter=parameter)}]"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        views.setdefault(annotation.__name__, annotation)
        return annotation.__name__
    raise TypeError(f"no stub for {annotation!r}")  # the vocabulary check makes this unreachable


def _default(value: Any) -> str:
    if value is PydanticUndefined:
        return "..."
    if isinstance(value, Decimal):
        return f"{value:f}".rstrip("0").rstrip(".") or "0"
    return repr(value)
