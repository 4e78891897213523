"""Who wrote a text found in a run's outcome, and a record's figure after each event:
read from the ledger, for the records the reader may see.

Whatever the domain, the run's own calls say much: each use case's result carries its
integrity labels (`application.labels`), so a text field names its writer (`Text(by=...)`,
the fact beside it, or a fixed `Text(author=...)`) and a fact field is the system's own.
`learn_results` reads them from the calls a run made.

A domain whose records' histories say more (the bank's accounts: who wrote each memo, the
balance after each event) declares how to read them (`Domain.agent_histories`); `learn`
reads the histories of the records a run named, those the reader may read, and their word
comes first. A text neither can place is left without an author.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from functools import cached_property
from typing import Protocol
from uuid import UUID

from eventsourcing.domain import Aggregate, AggregateEvent

from application.domains import AgentHistories, Domain, OwnedWords
from application.kinds import keyed
from application.labels import Fields, Items, Leaf, Tree
from application.principals import PrincipalView
from application.results import CallRecord
from application.telling import Telling
from domain.errors import DomainError
from gateway.agent.prompts import default_domain
from gateway.core.catalog import Catalog
from gateway.core.policy.decisions import call_refusal

MIN_CONTAINED = 8  # a shorter memo found inside a longer text says little about who wrote it


class RecordHistories(Protocol):
    """What Authors reads: the facade's (`Gateway`), or a ledger's in a test."""

    def events_of(self, aggregate_id: UUID, /) -> list[AggregateEvent]: ...

    def keys_in_log(self, kind: type[Aggregate], /) -> list[str]: ...


class Authors:
    """An index of the memos and owners of the accounts read so far (`learn` adds some)."""

    def __init__(
        self,
        histories: RecordHistories,
        reader: PrincipalView,
        catalog: Catalog | None = None,
        domain: Domain | None = None,
    ) -> None:
        self.histories = histories
        self.reader = reader
        self.catalog = catalog
        # How the domain's histories are read (the default domain's when none is given).
        served = domain or default_domain()
        self.read: AgentHistories | None = served.agent_histories
        # What its records are called, in the withheld sentences' reasons.
        self.words: OwnedWords = served.owned_words
        # How its events and known results are told in the code's words.
        self.telling: Telling = served.telling
        # What the results' labels say: a text's writers, and the strings that are facts.
        self._labelled: dict[str, set[str]] = {}
        self._facts: set[str] = set()
        self._learnt: set[str] = set()
        self._writers: dict[str, set[str]] = {}
        self._figures: dict[tuple[str, int], Decimal] = {}

    def learn(self, accounts: Iterable[str]) -> None:
        """Read the histories of these records, those the reader may read."""
        read = self.read
        if read is None:
            return
        for account in accounts:
            if account in self._learnt or not read.is_id(account):
                continue
            self._learnt.add(account)
            if call_refusal(self.reader, read.reader, {read.argument: account}):
                continue
            try:
                history = self.histories.events_of(keyed(read.kind).id_for(account))
            except DomainError:
                continue
            said = read.read(account, history)
            for text, writer in said.writers:
                self._note(text, writer)
            for version, figure in said.figures.items():
                self._figures[(account, version)] = figure

    def is_id(self, value: object) -> bool:
        """Whether `value` is the id of a record whose history the domain reads."""
        return self.read is not None and self.read.is_id(value)

    def learn_results(self, calls: Iterable[CallRecord]) -> None:
        """Read the writers of the texts, and the facts, of these calls' results by their
        use cases' labels (a call the catalog does not know is skipped)."""
        if self.catalog is None:
            return
        for call in calls:
            if call.name in self.catalog:
                self._labels(self.catalog.get(call.name).labels(), call.result)

    def is_fact(self, text: str) -> bool:
        """Whether a result's labels made `text` a fact, and none made it a text."""
        return text in self._facts and self.of(text) is None

    def _labels(self, tree: Tree, value: object) -> None:
        if isinstance(tree, Items) and isinstance(value, list):
            for item in value:
                self._labels(tree.item, item)
        elif isinstance(tree, Fields) and isinstance(value, dict):
            for name, child in tree.fields.items():
                item = value.get(name)
                if isinstance(child, Leaf) and child.label.is_text and item:
                    label = child.label
                    writer = value.get(label.by) if label.by else label.author
                    if isinstance(writer, str) and writer:
                        self._labelled.setdefault(str(item), set()).add(writer)
                else:
                    self._labels(child, item)
        elif isinstance(tree, Leaf) and not tree.label.is_text and isinstance(value, str):
            self._facts.add(value)

    @cached_property
    def ids(self) -> frozenset[str]:
        """Every id of the records whose histories the domain reads: how one named in prose
        is recognised (none, in a domain whose histories are not read)."""
        if self.read is None:
            return frozenset()
        return frozenset(self.histories.keys_in_log(self.read.kind))

    def of(self, text: str) -> str | None:
        """Who wrote `text`, or a text it contains; several writers read `a or b`."""
        # The ledger's word first; then what the results' labels say.
        for known in (self._writers, self._labelled):
            writers = known.get(text)
            if writers is None:
                found = [
                    (len(memo), memo)
                    for memo in known
                    if len(memo) >= MIN_CONTAINED and memo in text
                ]
                if not found:
                    continue
                writers = known[max(found)[1]]
            return " or ".join(sorted(writers))
        return None

    def figure_after(self, record: str | None, version: int | None) -> Decimal | None:
        """The record's figure after that version (the bank's balance), when its history
        was read."""
        if record is None or version is None:
            return None
        return self._figures.get((record, version))

    def _note(self, text: str, writer: str) -> None:
        self._writers.setdefault(text, set()).add(writer)
