"""A business domain, declared once and handed to the gateway, and how one is found.

A domain is a package of its own (the bank is the first): its use cases, the header of the
directory a planner reads, and the demo data `sluice demo` seeds. It declares one `Domain`
object and registers it under the entry-point group `sluice.domains` of its distribution
(`bank = "application.bank.domain:BANK"` in pyproject.toml); `load` finds it by that name
(SLUICE_DOMAIN, `--domain`). Nothing here names a domain's concepts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any

from application.api_examples import ApiExamples
from application.audited import AuditedRecord
from application.money_moves import MoneyReader, no_money_moves
from application.read_models.declared import NO_READ_MODELS, DomainReadModels
from application.settings_error import SettingsError
from application.telling import NO_TELLING, Telling

if TYPE_CHECKING:
    from eventsourcing.domain import Aggregate

    from application.books import Books
    from application.ledger import Ledger
    from application.read_routes import ReadRoute
    from application.use_case import UseCase

GROUP = "sluice.domains"
DEFAULT = "bank"


@dataclass(frozen=True)
class DemoRecord:
    """One thing the demo creates, by calling a use case as the demo's admin."""

    name: str
    use_case: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class DemoPrincipal:
    """A demo principal: its name, its role and what it owns (a scoped role's reach)."""

    name: str
    role: str
    owns: tuple[str, ...] = ()


def _nothing_present(_: Ledger) -> Iterable[str]:
    return ()


@dataclass(frozen=True)
class Demo:
    """The demo data a domain seeds where it is absent: `sluice demo`, `sluice serve --demo`.

    `present` names the records a store holds already, so seeding twice adds nothing."""

    records: tuple[DemoRecord, ...] = ()
    principals: tuple[DemoPrincipal, ...] = ()
    present: Callable[[Ledger], Iterable[str]] = _nothing_present
    # How `sluice demo` says what it made: `opened alice, bob`, or `opened no accounts`.
    made: str = "opened"
    made_none: str = "no accounts"
    # A read use case with no required argument that `sluice serve --demo` shows called over
    # HTTP as a first try; None: the bank's `GET /v1/accounts`.
    try_read: str | None = None


@dataclass(frozen=True)
class OwnedWords:
    """What a customer principal owns, in the domain's words (the bank's accounts unless it
    says otherwise): `many` names them (`a teller owns no accounts`); the refusal of an
    argument naming one it does not own reads `{use case}: {argument} {id} {not_owned}`,
    `{principal}` being the principal's name. `an_id` names a well-formed id of one (`'Dan'
    is not an account id`); `records`, what a program reads and writes, as a refused commit
    says they changed since its preview, and `record` one of them, as the agent's reasons
    for withholding a sentence name it (`states an account's figure`)."""

    many: str = "accounts"
    not_owned: str = "is not an account of principal {principal}"
    an_id: str = "an account id"
    records: str = "accounts"
    record: str = "account"
    # The owned id a record (an aggregate of the domain) belongs to, when it is not itself
    # one: a customer sees the versions of its own such records (`UnitOfWork.event_json`).
    owner_of: Callable[[object], str | None] = field(default=lambda _record: None)
    # The refusal of an id the domain's `ownable` rule refuses, `{id}` standing for it.
    unowned: str = "owns: {id} is not one a principal may own here"

    def refusal(self, use_case: str, argument: str, value: str, principal: str) -> str:
        return f"{use_case}: {argument} {value} {self.not_owned.format(principal=principal)}"


@dataclass(frozen=True)
class AgentWords:
    """What the agent's prompts say of a domain's data and requests, in its own words (the
    rest of the prompts is the gateway's). The defaults speak of no domain in particular."""

    # The data a planner never sees, and examples of it (the directory form's prompt).
    data: str = "the data"
    data_examples: str = "records and results"
    # A question the planner answers with a program that reads, never with an answer.
    reads: str = "a question about the data"
    # One call, as a program writes it, and a use case whose sheet the planner may ask for.
    call_example: str = 'list_items(kind="any")'
    sheet_example: str = "list_items"
    # When the planner asks rather than guesses.
    ask_when: str = "the request does not say what, how much or for whom"
    # Rule 4 of the stubs form: a use case only for what it does itself.
    only_what: str = "never call a function that writes unless the user asks for exactly that"
    # What the planner takes from the user and invents none of.
    given: str = "ids, amounts and texts"
    # What a scoped principal owns, in the planner's words; {name}, {owned}, {first}.
    owned: str = "records"
    owns: str = '; {name} owns {owned}, and "me" is {first}'
    # A request none of the use cases can do (an example of the planner's refusal).
    cannot: str = "Delete the audit log."
    # The answerer's prompt: what Sluice shows of an outcome, the ids it may name, the
    # advice it gives none of, and the data it quotes.
    shown: str = "status, events, result"
    quotes: str = "every text and name"
    ids: str = "ids"
    repeated: str = "texts or names"
    advice: str = "give no advice to act"
    texts: str = "texts, names, messages"


@dataclass(frozen=True)
class HistoryTexts:
    """What one record's history tells the agent: who wrote each text in it (text, writer),
    and a figure after each version of it (an account's balance)."""

    writers: tuple[tuple[str, str], ...] = ()
    figures: Mapping[int, Decimal] = field(default_factory=dict)


@dataclass(frozen=True)
class AgentHistories:
    """How the agent reads the histories of the records a run named, to tell who wrote the
    texts its answer quotes: which values are such records' ids (`is_id`), the read a
    principal must be allowed to make on one (`reader`, naming it by `argument`) before
    its history is read, what a history says (`read`: the record, its events), and the
    keyed aggregate such records are (`kind`: the bank's Account)."""

    is_id: Callable[[object], bool]
    reader: type[UseCase[Any]]
    argument: str
    read: Callable[[str, Sequence[object]], HistoryTexts]
    kind: type[Aggregate]


@dataclass(frozen=True)
class Domain:
    """A business domain as the gateway serves it."""

    name: str
    title: str
    # In the order the directory lists them.
    use_cases: tuple[type[UseCase[Any]], ...]
    # What the directory (the tool sheet) opens with: it speaks to a planner model.
    directory_header: str
    demo: Demo = field(default_factory=Demo)
    # Whether a customer principal may be granted this id to own (`principals.register`):
    # the bank's rule is an account that exists; None: any well-formed id (the shop's
    # customers are ids of their own).
    ownable: Callable[[Ledger, str], bool] | None = None
    # What the agent's prompts say of the domain; the defaults name no domain's concepts.
    agent_words: AgentWords = field(default_factory=AgentWords)
    # How the agent reads who wrote the texts of a record's history; None: a domain whose
    # results' labels say it all (gateway/agent/authors.py).
    agent_histories: AgentHistories | None = None
    # How the agent's answer tells its events and known results in the code's words; by
    # default an event as `key: Type` and a result by its labels (application/telling.py).
    telling: Telling = NO_TELLING
    # The money a preview's events move, as the inbox and a review show it; by default none.
    money_moves: MoneyReader = no_money_moves
    # What its customers own, in words: the bank's accounts by default.
    owned_words: OwnedWords = field(default_factory=OwnedWords)
    # The examples its OpenAPI document shows (application/api_examples.py); None: none
    # that names a use case, a record or a refusal.
    api_examples: ApiExamples | None = None
    # Its resources under /v1, derived from its read use cases (application/read_routes.py).
    read_routes: tuple[ReadRoute, ...] = ()
    # Its read models: their projections and the reads they answer; by default none (every
    # read answered by its use case from the log), beside the gateway's runs.
    read_models: DomainReadModels = NO_READ_MODELS
    # The audit: the kinds of records `sluice audit record KIND ID` and `audit as-of` follow
    # by their keys, which also name their events in the log (`account` of `sluice events`);
    # and the domain's check of its books from the log (`sluice audit verify`), a fresh one
    # each time. None of either: the audit follows no record by key, and verify makes only
    # the checks every domain gets (each run's events contiguous, nothing set aside).
    audited: tuple[AuditedRecord, ...] = ()
    books: Callable[[], Books] | None = None


def _entries() -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for entry in entry_points(group=GROUP):
        found.setdefault(entry.name, entry)  # one distribution seen twice on the path
    return found


def installed() -> list[str]:
    """The names of the installed domains, sorted."""
    return sorted(_entries())


def load(name: str) -> Domain:
    """The installed domain `name`, or a SettingsError naming it and the installed ones."""
    entry = _entries().get(name)
    if entry is None:
        known = ", ".join(installed()) or "none"
        raise SettingsError(f"no domain {name!r} is installed (installed: {known})")
    try:
        domain = entry.load()
    except Exception as broken:  # a domain package that fails to import, whatever the cause
        raise SettingsError(
            f"domain {name} ({entry.value}) could not be loaded: {broken}"
        ) from None
    if not isinstance(domain, Domain):
        raise SettingsError(f"domain {name}: {entry.value} is not a Domain")
    if domain.name != name:
        raise SettingsError(f"domain {name}: {entry.value} is named {domain.name!r}")
    return domain


__all__ = [
    "DEFAULT",
    "AgentHistories",
    "AgentWords",
    "AuditedRecord",
    "Demo",
    "DemoPrincipal",
    "DemoRecord",
    "Domain",
    "HistoryTexts",
    "OwnedWords",
    "installed",
    "load",
]
