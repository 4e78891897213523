"""A second domain, for the tests only: one read use case and its own demo principals.

The e2e tests install it beside the bank (an entry point of a distribution on the path);
the unit tests hand it to `Sluice` directly.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from application.domains import Demo, DemoPrincipal, Domain
from application.labels import Fact
from application.permissions import EVERYONE, Permission
from application.unit_of_work import UnitOfWork
from application.use_case import UseCase


class CountWords(UseCase[int]):
    """Count the words of a note."""

    name = "count_words"
    kind = "read"
    permission = Permission.of(*EVERYONE)

    note: str = Field(max_length=80, description="The note whose words are counted.")

    def perform(self, uow: UnitOfWork) -> Annotated[int, Fact]:
        del uow  # counting needs no store
        return len(self.note.split())


NOTES = Domain(
    name="notes",
    title="Notes: a domain of the tests",
    use_cases=(CountWords,),
    directory_header="You keep notes through the use case below.",
    demo=Demo(principals=(DemoPrincipal("admin", "admin"), DemoPrincipal("nora", "teller"))),
)

# Registered under a name of its own to prove a non-Domain is refused.
NOT_A_DOMAIN = "notes, but not a Domain"
