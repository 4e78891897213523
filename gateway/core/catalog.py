"""The catalog: directory, sheets and stubs, all derived from the use-case classes alone."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import Any

from application.domains import OwnedWords
from application.results import Sheet
from application.use_case import UseCase
from gateway.core.program.static_check import ProgramRules
from gateway.core.sheets import sheet_of
from gateway.core.stubs import render_stubs


class UnknownUseCaseError(LookupError):
    def __init__(self, name: str) -> None:
        # A name a caller typed is quoted escaped unless it could be a use case's name.
        super().__init__(f"no use case {name if name.isidentifier() else repr(name)[:70]}")
        self.name = name


class Catalog:
    def __init__(
        self,
        header: str,
        use_cases: Iterable[type[UseCase[Any]]],
        owned_words: OwnedWords | None = None,
    ) -> None:
        """`owned_words`: what the arguments its use cases mark `Owned` name, in the
        domain's words (`Domain.owned_words`); the bank's accounts by default."""
        self.header = header
        self.owned_words = OwnedWords() if owned_words is None else owned_words
        self._by_name: dict[str, type[UseCase[Any]]] = {}
        for use_case in use_cases:
            if use_case.name in self._by_name:
                raise ValueError(f"two use cases are named {use_case.name}")
            self._by_name[use_case.name] = use_case

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._by_name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def get(self, name: str) -> type[UseCase[Any]]:
        try:
            return self._by_name[name]
        except KeyError:
            raise UnknownUseCaseError(name) from None

    def directory(self) -> str:
        """The header, then one line per use case: `- transfer [write] Send money ...`."""
        return "\n".join([self.header, *self.entries()]) + "\n"

    def entries(self) -> list[str]:
        """The directory's lines without its header (which speaks to a model)."""
        return [f"- {u.name} [{u.kind}] {u.summary()}" for u in self._by_name.values()]

    def sheet(self, name: str) -> Sheet:
        return sheet_of(self.get(name))

    def sheets(self, names: Sequence[str]) -> list[Sheet]:
        """Sheets in the order asked; an unknown name refuses them all."""
        return [self.sheet(name) for name in names]

    def only(self, names: Iterable[str]) -> Catalog:
        """The same catalog restricted to some use cases, in the same order."""
        keep = set(names)
        kept = [u for u in self._by_name.values() if u.name in keep]
        return Catalog(self.header, kept, self.owned_words)

    @cached_property
    def program_rules(self) -> ProgramRules:
        """What a program's check needs: each use case's result labels and guarded arguments."""
        return ProgramRules(
            labels={name: use_case.labels() for name, use_case in self._by_name.items()},
            guarded={name: use_case.guarded for name, use_case in self._by_name.items()},
        )

    @cached_property
    def stubs(self) -> str:
        return render_stubs(self._by_name.values())

    @cached_property
    def documented_stubs(self) -> str:
        """The stubs with descriptions and arguments: a planner's whole catalog at once."""
        return render_stubs(self._by_name.values(), documented=True)
