"""The use case: one pydantic model that is at once command, tool sheet and program function."""

from __future__ import annotations

import inspect
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar, get_type_hints

from pydantic import BaseModel, ConfigDict, TypeAdapter, field_validator

from application.permissions import Permission
from application.vocabulary import UseCaseDefinitionError, check_parameter, check_result
from domain.errors import DomainError
from domain.text import unprintable

if TYPE_CHECKING:
    from application.ports import OutputPort
    from application.unit_of_work import UnitOfWork

Kind = Literal["read", "write"]
Result = TypeVar("Result")


class UseCase(BaseModel, Generic[Result]):
    """Base of every use case; subclasses set `name`, `kind`, a docstring and `perform`."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    name: ClassVar[str]
    kind: ClassVar[Kind]
    permission: ClassVar[Permission]
    # The argument whose value counts toward a program's cap on money moved.
    moves_amount: ClassVar[str | None] = None
    # Arguments a JSON plan must fix at planning time, never take from what a step read.
    literal_only: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if "perform" not in cls.__dict__:
            return  # an intermediate base, not a use case
        owner = cls.__name__
        if not getattr(cls, "name", ""):
            raise UseCaseDefinitionError(f"{owner}: a use case needs a name")
        if getattr(cls, "kind", None) not in ("read", "write"):
            raise UseCaseDefinitionError(f"{owner}: kind must be 'read' or 'write'")
        if not (cls.__doc__ or "").strip():
            raise UseCaseDefinitionError(f"{owner}: a use case needs a docstring")
        for field, info in cls.model_fields.items():
            if not info.description:
                raise UseCaseDefinitionError(f"{owner}.{field}: field has no description")
            check_parameter(owner, field, info.annotation)
        check_result(owner, cls.result_type())
        if not isinstance(getattr(cls, "permission", None), Permission):
            raise UseCaseDefinitionError(f"{owner}: a use case needs a permission")
        named = {
            "permission.owned": cls.permission.owned,
            "moves_amount": (cls.moves_amount,) if cls.moves_amount else (),
            "literal_only": cls.literal_only,
        }
        for where, fields in named.items():
            for field in fields:
                if field not in cls.model_fields:
                    raise UseCaseDefinitionError(f"{owner}.{where}: no field {field}")

    @field_validator("*", mode="before")
    @classmethod
    def _printable(cls, value: Any) -> Any:
        """Every text argument is one line of printable text: stores and screens hold it as is.

        Checked before pydantic's own string checks, so a lone surrogate is named too."""
        if isinstance(value, str):
            found = unprintable(value)
            if found is not None:
                raise ValueError(str(found))
        return value

    @classmethod
    def description(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def summary(cls) -> str:
        """The first line of the description: what the directory shows."""
        return cls.description().splitlines()[0]

    @classmethod
    def result_type(cls) -> Any:
        return _result_type(cls)

    @classmethod
    def result_adapter(cls) -> TypeAdapter[Any]:
        """Dumps a result for the sandbox (Python values) or for JSON readers."""
        return _result_adapter(cls)

    def execute(self, uow: UnitOfWork, out: OutputPort[Result]) -> None:
        """Run against a unit of work; report through the port, never by raising."""
        try:
            result = self.perform(uow)
        except DomainError as refusal:
            out.failure(str(refusal))
        else:
            out.success(result)

    def perform(self, uow: UnitOfWork) -> Result:
        raise NotImplementedError


@cache
def _result_type(use_case: type[UseCase[Any]]) -> Any:
    return get_type_hints(use_case.perform, include_extras=True)["return"]


@cache
def _result_adapter(use_case: type[UseCase[Any]]) -> TypeAdapter[Any]:
    return TypeAdapter(_result_type(use_case))
