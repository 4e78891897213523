"""The types a use case may take and return: what every face of the catalog can express.

A use case is at once a command, a tool sheet (JSON Schema), a typed Python stub and a
sandbox function; a field of any other type could not be rendered on all of them, so it
is refused when the class is defined, naming the class and the field.
"""

from __future__ import annotations

import types
from decimal import Decimal
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

SCALARS: tuple[type, ...] = (str, int, bool, Decimal)


class UseCaseDefinitionError(TypeError):
    """A use case class that the catalog cannot render."""


def is_optional(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType) and type(None) in get_args(annotation)


def check_parameter(owner: str, field: str, annotation: Any) -> None:
    """Parameters are scalars, Literal strings, or an optional one of those."""
    if get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if is_optional(annotation):
        inner = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(inner) == 1:
            check_parameter(owner, field, inner[0])
            return
    if annotation in SCALARS or _is_literal_of_str(annotation):
        return
    raise UseCaseDefinitionError(
        f"{owner}.{field}: type {_name(annotation)} cannot be expressed by the catalog "
        "(use str, int, bool, Decimal, a Literal of strings, or one of them | None)"
    )


def check_result(owner: str, annotation: Any) -> None:
    """Results are scalars, None, described pydantic models, or lists of them."""
    if get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if annotation is None or annotation is type(None) or annotation in SCALARS:
        return
    if _is_literal_of_str(annotation):
        return
    if is_optional(annotation):
        for arg in get_args(annotation):
            check_result(owner, arg)
        return
    if get_origin(annotation) is list and len(get_args(annotation)) == 1:
        check_result(owner, get_args(annotation)[0])
        return
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        check_view(annotation)
        return
    raise UseCaseDefinitionError(
        f"{owner}: result type {_name(annotation)} cannot be expressed by the catalog"
    )


def check_view(model: type[BaseModel]) -> None:
    """A result model documents every field and keeps to the vocabulary."""
    if not (model.__doc__ or "").strip():
        raise UseCaseDefinitionError(f"{model.__name__}: a result model needs a docstring")
    for field, info in model.model_fields.items():
        if not info.description:
            raise UseCaseDefinitionError(f"{model.__name__}.{field}: field has no description")
        check_result(f"{model.__name__}.{field}", info.annotation)


def _is_literal_of_str(annotation: Any) -> bool:
    return get_origin(annotation) is Literal and all(
        isinstance(a, str) for a in get_args(annotation)
    )


def _name(annotation: Any) -> str:
    if get_origin(annotation) is not None:
        return repr(annotation).replace("typing.", "")
    return getattr(annotation, "__name__", None) or repr(annotation)
