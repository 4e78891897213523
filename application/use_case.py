"""The use case: one pydantic model that is at once command, tool sheet and program function."""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar, get_type_hints

from pydantic import BaseModel, ConfigDict, TypeAdapter, field_validator

from application.data_policy import ArgumentPolicy
from application.executor import execute
from application.field_rules import rules_of
from application.labels import Tree, label_tree
from application.permissions import Permission
from application.vocabulary import UseCaseDefinitionError, check_parameter, check_result
from domain.errors import DomainError
from domain.text import unprintable

if TYPE_CHECKING:
    from application.ports import OutputPort
    from application.unit_of_work import UnitOfWork

Kind = Literal["read", "write"]
Result = TypeVar("Result")
# Who an example is shown to: a principal who owns accounts (a customer), staff, or anyone.
Asker = Literal["owner", "staff", "anyone"]
ME = "{me}"


@dataclass(frozen=True)
class Example:
    """A request and the program (or the question) that answers it, shown to a planner.

    `{me}` stands for the asking principal's own account. Other account names are made up:
    an example shows a shape, never the deployment's data. Exactly one of `program` and
    `question` is given; a program is Python that parses. After a question, `then` may give
    the user's answer and the program it completes: (words, program).
    """

    request: str
    program: str = ""
    question: str = ""
    asked_by: Asker = "anyone"
    then: tuple[str, str] | tuple[()] = ()

    def check(self, owner: str) -> None:
        if bool(self.program) == bool(self.question):
            raise UseCaseDefinitionError(
                f"{owner}.examples: {self.request!r} needs a program or a question, not both"
            )
        if self.then and not self.question:
            raise UseCaseDefinitionError(
                f"{owner}.examples: {self.request!r} has a follow-up but asks no question"
            )
        for program in (self.program, self.then[1] if self.then else ""):
            try:
                ast.parse(program)
            except SyntaxError as error:
                raise UseCaseDefinitionError(
                    f"{owner}.examples: the program of {self.request!r} is not Python: {error.msg}"
                ) from None


class UseCase(BaseModel, Generic[Result]):
    """Base of every use case; subclasses set `name`, `kind`, a docstring and `perform`."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    name: ClassVar[str]
    kind: ClassVar[Kind]
    permission: ClassVar[Permission]
    # At most this many calls in one program (None: only the cap on all calls); the
    # environment may replace these (`Caps.max_calls_per_use_case`).
    max_calls: ClassVar[int | None] = None
    # Read from the fields' markers (`application.field_rules`) when the class is defined,
    # never written by hand: the arguments a scoped principal must own, those a JSON plan
    # must fix at planning time, and the one whose value counts toward the cap on money moved.
    owned: ClassVar[tuple[str, ...]] = ()
    guarded: ClassVar[dict[str, ArgumentPolicy]] = {}
    literal_only: ClassVar[tuple[str, ...]] = ()
    moves_amount: ClassVar[str | None] = None
    # Requests a planner may meet, with the program that answers each: few-shot examples.
    examples: ClassVar[tuple[Example, ...]] = ()

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
        max_calls = getattr(cls, "max_calls", None)
        if max_calls is not None and (type(max_calls) is not int or max_calls < 1):
            raise UseCaseDefinitionError(
                f"{owner}.max_calls: a positive whole number or None, not {max_calls!r}"
            )
        for example in cls.examples:
            if not isinstance(example, Example):
                raise UseCaseDefinitionError(f"{owner}.examples: Example objects, not {example!r}")
            example.check(owner)
        for derived, marker in _DERIVED.items():
            if derived in cls.__dict__:
                raise UseCaseDefinitionError(
                    f"{owner}.{derived}: mark the field instead, Annotated[..., {marker}]"
                )
        rules = rules_of(owner, cls.model_fields)
        cls.owned = rules.owned
        cls.guarded = rules.guarded
        cls.literal_only = rules.literal_only
        cls.moves_amount = rules.moves_amount
        label_tree(f"{owner} result", cls.result_type())

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
    def labels(cls) -> Tree:
        """Who wrote each value of the result (`application.labels`)."""
        return _labels(cls)

    @classmethod
    def result_adapter(cls) -> TypeAdapter[Any]:
        """Dumps a result for the sandbox (Python values) or for JSON readers."""
        return _result_adapter(cls)

    def execute(self, uow: UnitOfWork, out: OutputPort[Result]) -> None:
        """Run against a unit of work (`application.executor.execute`); report through the
        port, never by raising: a refusal reaches `failure` as the DomainError it is."""
        try:
            executed = execute(self, uow)
        except DomainError as refusal:
            out.failure(refusal)
        else:
            out.success(executed.value)

    def perform(self, uow: UnitOfWork) -> Result:
        raise NotImplementedError


# The class attributes read from the fields' markers, and the marker that sets each.
_DERIVED = {
    "owned": "Owned",
    "guarded": "Guarded(policy)",
    "literal_only": "LiteralOnly",
    "moves_amount": "MovesMoney",
}


@cache
def _result_type(use_case: type[UseCase[Any]]) -> Any:
    return get_type_hints(use_case.perform, include_extras=True)["return"]


@cache
def _labels(use_case: type[UseCase[Any]]) -> Tree:
    return label_tree(f"{use_case.__name__} result", _result_type(use_case))


@cache
def _result_adapter(use_case: type[UseCase[Any]]) -> TypeAdapter[Any]:
    return TypeAdapter(_result_type(use_case))
