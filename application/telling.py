"""How a domain tells a run's events and known results in the code's own words.

The agent's answer to a decided run is written by the code (gateway/agent/facts.py): its
status, each event, the program's result. A domain declares how its events read (`paid
10.00 to bob`) and which result shapes it knows (an account as `alice: 40.00 EUR, open`),
as a `Telling`. What it tells is `Said` (the code's words: only ids, numbers and the
domain's fixed words) or `Quoted` (a text a party wrote, with its writer, or None when no
one can be vouched for); the gateway makes them the answer's facts and quoted parts.

A domain with no telling has its events told as `key: Type` and its results by their
labels (`application.labels`): nothing the data says is ever put in the code's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol

from application.results import EventRecord

# Who wrote a text that staff alone may write (an opening, a deposit), in every domain.
STAFF = "staff"
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)?$")


@dataclass(frozen=True)
class Said:
    """A line in the code's words."""

    text: str


@dataclass(frozen=True)
class Quoted:
    """A text a party wrote, quoted: its writer (a record's id, staff, ...; None when the
    code can vouch for no one) and what it is (`memo`, `owner of alice`)."""

    text: str
    writer: str | None
    what: str


Told = Said | Quoted


class Known(Protocol):
    """What the gateway has learnt of the run's records, for a telling to use."""

    def is_id(self, value: object) -> bool:
        """Whether `value` is the id of a record whose history was read."""

    def of(self, text: str) -> str | None:
        """Who wrote `text` (`a or b` for several), or None."""

    def figure_after(self, record: str | None, version: int | None) -> Decimal | None:
        """The record's figure (the bank's balance) after that version, when read."""


def _tells_nothing(_event: EventRecord, _known: Known) -> list[Told] | None:
    return None


def _knows_no_shape(_value: Mapping[str, Any], _known: Known, _telling: Telling) -> list[Told]:
    return []


@dataclass(frozen=True)
class Telling:
    """A domain's words for its events and results.

    - `event`: the lines of one event, or None to leave it to the default (`key: Type`);
    - `shape`: the lines of a result object of a shape the domain knows, when every field
      holds what the code may write (`plain`), else [] (its fields are told one by one);
    - `id_keys`: the fields whose values are records' ids (`payer`, `payee`, ...);
    - `words`: the fields whose values are one of a few fixed words (`status`: open, closed).
    A field of `id_keys` or `words` (or a `timestamp`) holding such a value is told as a
    fact wherever it is found in a result; any other text is quoted."""

    event: Callable[[EventRecord, Known], list[Told] | None] = _tells_nothing
    shape: Callable[[Mapping[str, Any], Known, Telling], list[Told]] = _knows_no_shape
    id_keys: frozenset[str] = frozenset()
    words: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def plain(self, value: Mapping[str, Any], numbers: Sequence[str], known: Known) -> bool:
        """Every field holds what the code may write as its own: a number where one is due,
        a known record's id, one of the fixed words, a timestamp."""
        for key, item in value.items():
            if key in numbers and scalar(item) is None:
                return False
            if key in self.id_keys and item is not None and not known.is_id(item):
                return False
            if key in self.words and item not in self.words[key]:
                return False
            if key == "timestamp" and not (isinstance(item, str) and TIMESTAMP.match(item)):
                return False
        return True

    def is_plain_word(self, key: str) -> bool:
        """Whether a field of this name, when plain, is told as a fact."""
        return key in self.id_keys or key in self.words or key == "timestamp"


NO_TELLING = Telling()


def writer(value: Any, known: Known) -> str | None:
    """A text's writer as a result or an event names it: record ids (`a or b`) or staff;
    anything else names no one the code can vouch for."""
    if not isinstance(value, str) or not value:
        return None
    names = value.split(" or ")
    if all(name == STAFF or known.is_id(name) for name in names):
        return value
    return None


def when(timestamp: str) -> str:
    """An ISO timestamp to the second, in UTC when it is."""
    moment = datetime.fromisoformat(timestamp)
    if moment.utcoffset() == timedelta(0):
        return f"{moment:%Y-%m-%d %H:%M:%S} UTC"
    return moment.isoformat(timespec="seconds")


def scalar(value: Any) -> str | None:
    """A number, a boolean or nothing, as the code writes it; None for anything else."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | Decimal):
        return str(value)
    if isinstance(value, str):
        try:
            Decimal(value)
        except InvalidOperation:
            return None
        return value if re.fullmatch(r"-?\d+(\.\d+)?", value) else None
    return None
