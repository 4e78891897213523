"""Where a call's arguments came from, and what a use case allows of arguments computed
from data.

A program writes each argument of a call from its own literals, or computes it from what
use cases returned. The gateway's data flow (`gateway.core.program.provenance`) tells,
before the program runs, which results and which of their fields each argument may come
from, and the results' integrity labels (`application.labels`) say whether each is a fact
of the system or text a party wrote; when the call is made, the gateway fills in who wrote
the text it actually returned. An `Origin` is one such source; an argument with none is a
literal the person's request gave.

A use case marks an argument that data must not decide freely with a policy, in the
field's `Annotated[...]` (`Guarded(policy)`; `LiteralOnly` is the strictest: no data at
all). The gateway asks the policy twice: before the program runs, with what the data flow
knows (`before_run`), and at each call, with the values the program actually computed
(`at_call`). A refusal says what to ask the person; nothing runs or nothing is written.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from application.principals import PrincipalView
    from application.unit_of_work import UnitOfWork
    from application.use_case import UseCase

OriginLabel = Literal["fact", "text", "unknown"]
UNKNOWN_AUTHOR = "an unknown author"


@dataclass(frozen=True)
class Origin:
    """One source of an argument: a use case's result (a call at a place), which field of
    it, its label, who wrote it when it is text, and whether the data gave the value itself
    or only chose it (a condition, a loop, an index, a filter: `chosen`)."""

    call: str
    line: int
    column: int
    field: str  # e.g. "counterparty", "[].memo"; "" for the whole result
    label: OriginLabel
    chosen: bool = False
    authors: tuple[str, ...] = ()  # text: who wrote it, once the call returned

    def describe(self) -> str:
        """`statement (line 2) counterparty: fact`, `... memo: text by mallory`."""
        chose = " (chose it)" if self.chosen else ""
        if self.label == "unknown":
            return "a value the gateway cannot trace (a function, an exception)" + chose
        where = f"{self.call} (line {self.line})" + (f" {self.field}" if self.field else "")
        what: str = self.label
        if self.label == "text":
            what = f"text by {' or '.join(self.authors)}" if self.authors else "text"
        return f"{where}: {what}{chose}"

    def to_json(self) -> dict[str, Any]:
        return {
            "call": self.call,
            "line": self.line,
            "column": self.column,
            "field": self.field,
            "label": self.label,
            "chosen": self.chosen,
            "authors": list(self.authors),
        }

    def written_by_others(self, own: Collection[str]) -> tuple[str, ...]:
        """Who else wrote it, when it is text that gave the value (not only chose it)."""
        if self.chosen or self.label == "fact":
            return ()
        if self.label == "unknown" or not self.authors:
            return (UNKNOWN_AUTHOR,)
        return tuple(author for author in self.authors if author not in own)


@dataclass(frozen=True)
class ArgumentOrigins:
    """Every source an argument's value may have; none: a literal of the program."""

    origins: tuple[Origin, ...] = ()

    @property
    def literal(self) -> bool:
        return not self.origins

    def text_by_others(self, own: Collection[str]) -> tuple[str, ...]:
        """Who, other than `own`, wrote text the value was computed from (sorted)."""
        found = {author for origin in self.origins for author in origin.written_by_others(own)}
        return tuple(sorted(found))

    def text(self) -> tuple[Origin, ...]:
        """The sources that are text (or anything) and gave the value itself."""
        return tuple(o for o in self.origins if not o.chosen and o.label != "fact")

    def describe(self) -> str:
        """What gave the value, or, when data only chose it, what chose it."""
        given = [origin for origin in self.origins if not origin.chosen]
        return "; ".join(origin.describe() for origin in given or self.origins)


@dataclass(frozen=True)
class CallProvenance:
    """Where one call's non-literal arguments came from, and what its policies granted
    (`grants`: e.g. that a payment is a refund). A direct call has none: `DIRECT`."""

    arguments: Mapping[str, ArgumentOrigins] = field(default_factory=dict)
    grants: frozenset[str] = frozenset()

    def of(self, argument: str) -> ArgumentOrigins:
        return self.arguments.get(argument, ArgumentOrigins())

    def author_of(self, argument: str, writer: str | None) -> str | None:
        """Who wrote a text argument, when it is not `writer` (the caller's side): the
        writers of the data it was copied from, or None when the program wrote it."""
        others = self.of(argument).text_by_others({writer} if writer else ())
        return " or ".join(others) if others else None


DIRECT = CallProvenance()


@dataclass(frozen=True)
class PolicyCall:
    """A call as its policy sees it, when the program makes it."""

    use_case: UseCase[Any]
    provenance: CallProvenance
    principal: PrincipalView
    uow: UnitOfWork

    def origins(self, argument: str) -> ArgumentOrigins:
        return self.provenance.of(argument)


@dataclass(frozen=True)
class Refused:
    """A refusal known before the program runs, at the argument it is about."""

    argument: str
    message: str


@dataclass(frozen=True)
class Decision:
    """A policy's answer: a refusal (what to ask the person), or what it grants."""

    refusal: str | None = None
    grants: frozenset[str] = frozenset()


ALLOWED = Decision()


class ArgumentPolicy:
    """What a use case allows of arguments computed from data; the default allows none."""

    # What the sheet and the stub say of a guarded argument.
    note = "Write it as a literal: a program may not compute it from what it read."

    def note_for(self, argument: str) -> str:
        """What the sheet and the stub say of `argument`."""
        return self.note

    def before_run(self, use_case: str, arguments: Mapping[str, ArgumentOrigins]) -> Refused | None:
        """A refusal known from the program's text alone (`arguments`: the guarded ones
        that are not literals, their origins without authors), or None."""
        return None

    def at_call(self, call: PolicyCall, guarded: Collection[str]) -> Decision:
        return ALLOWED

    @property
    def strict(self) -> bool:
        """Whether no data may reach the argument at all (a JSON plan fixes it)."""
        return False


class LiteralOnlyPolicy(ArgumentPolicy):
    """The argument is always a literal of the program: data never reaches it."""

    def before_run(self, use_case: str, arguments: Mapping[str, ArgumentOrigins]) -> Refused | None:
        if not arguments:
            return None
        name = next(iter(arguments))
        more = f" (and {len(arguments) - 1} more)" if len(arguments) > 1 else ""
        return Refused(
            name,
            f"{use_case}: {name} must be written as a literal in the program, "
            f"not computed from data{more}",
        )

    def at_call(self, call: PolicyCall, guarded: Collection[str]) -> Decision:
        computed = {name: call.origins(name) for name in guarded if not call.origins(name).literal}
        refused = self.before_run(call.use_case.name, computed)
        return ALLOWED if refused is None else Decision(refused.message)

    @property
    def strict(self) -> bool:
        return True


LITERAL_ONLY = LiteralOnlyPolicy()
