"""Rules a use case states on its own fields, next to the field they are about.

A field carries its rules in its annotation, as markers the gateway enforces:

    payer: Annotated[AccountName, Owned] = Field(description="The account that pays.")

- `Owned`: a scoped principal (a customer) may only name an account it owns here.
- `Guarded(policy)`: what a program computed from data may reach this argument is the
  policy's to say (`application.data_policy`), before the program runs and at each call.
  `LiteralOnly` is the strictest: a program writes the argument from its own literals,
  never from what a use case returned (a JSON plan fixes it when written).
- `MovesMoney`: the amount counts toward a program's cap on money moved (one per use case).
- `AccountId`: the value is an account id; carried by the account type itself, it is what
  `Owned` may mark.
- `OwnableId`: the value is an id of another kind that a scoped principal may own (a shop's
  customer id); carried by that type, `Owned` may mark it as it marks an account id.

`UseCase` reads the markers when a class is defined (`rules_of`) and keeps what they say
as class attributes; a marker that cannot apply is a `UseCaseDefinitionError` then.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pydantic.fields import FieldInfo

from application.data_policy import LITERAL_ONLY, ArgumentPolicy
from application.vocabulary import UseCaseDefinitionError


@dataclass(frozen=True, eq=False)
class FieldRule:
    """A marker in a field's `Annotated[...]`; compared by identity."""

    name: str

    def __repr__(self) -> str:
        return self.name


@dataclass(frozen=True, eq=False)
class Guarded(FieldRule):
    """Data reaches the argument only as `policy` allows."""

    policy: ArgumentPolicy = LITERAL_ONLY

    def __repr__(self) -> str:
        return "LiteralOnly" if self.policy is LITERAL_ONLY else f"Guarded({self.policy!r})"


def guarded(policy: ArgumentPolicy) -> Guarded:
    """The marker of an argument that `policy` guards."""
    return Guarded("Guarded", policy)


Owned = FieldRule("Owned")
LiteralOnly = Guarded("LiteralOnly", LITERAL_ONLY)
MovesMoney = FieldRule("MovesMoney")
AccountId = FieldRule("AccountId")
OwnableId = FieldRule("OwnableId")


@dataclass(frozen=True)
class FieldRules:
    """What a use case's markers say, by field name, in the order of the fields."""

    owned: tuple[str, ...]
    guarded: dict[str, ArgumentPolicy]
    moves_amount: str | None

    @property
    def literal_only(self) -> tuple[str, ...]:
        return tuple(name for name, policy in self.guarded.items() if policy.strict)


def rules_of(owner: str, fields: Mapping[str, FieldInfo]) -> FieldRules:
    """Collect the markers of a use case's fields; refuse one that cannot apply."""

    def marked(rule: FieldRule) -> tuple[str, ...]:
        return tuple(name for name, info in fields.items() if _has(info, rule))

    owned, amounts = marked(Owned), marked(MovesMoney)
    for name in owned:
        if not (_has(fields[name], AccountId) or _has(fields[name], OwnableId)):
            raise UseCaseDefinitionError(
                f"{owner}.{name}: Owned marks an account argument (an AccountName), "
                f"not {_type_name(fields[name].annotation)}"
            )
    if len(amounts) > 1:
        raise UseCaseDefinitionError(
            f"{owner}: MovesMoney on {' and '.join(amounts)}; a use case moves one amount"
        )
    for name in amounts:
        if fields[name].annotation is not Decimal:
            raise UseCaseDefinitionError(
                f"{owner}.{name}: MovesMoney marks an amount (a Decimal), "
                f"not {_type_name(fields[name].annotation)}"
            )
    guarded: dict[str, ArgumentPolicy] = {}
    for name, info in fields.items():
        policies = [item.policy for item in info.metadata if isinstance(item, Guarded)]
        if len(policies) > 1:
            raise UseCaseDefinitionError(f"{owner}.{name}: one policy guards an argument")
        if policies:
            guarded[name] = policies[0]
    return FieldRules(owned=owned, guarded=guarded, moves_amount=amounts[0] if amounts else None)


def _has(info: FieldInfo, rule: FieldRule) -> bool:
    return any(item is rule for item in info.metadata)


def _type_name(annotation: Any) -> str:
    return getattr(annotation, "__name__", None) or repr(annotation).replace("typing.", "")
