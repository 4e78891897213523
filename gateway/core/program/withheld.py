"""A failed program's error, told without the data it read.

A run's error is read by people and by models alike: the answerer model explains it, an
MCP client shows it to its model, any API client may be one. So once a program may hold
data (a use case has returned a value to it), its error quotes none of it:
- its own exception is named by type and place only (`ValueError`), for its message may
  quote any value the program held (`int(memo)` quotes the memo);
- a refused call quotes an argument only when the program wrote it from its literals
  (`gateway.core.program.provenance`); an argument computed from data is written
  `<value>` wherever the refusal quotes it, and when that cannot be done with certainty
  the refusal's reason is not quoted at all, only its kind.
The domain's own figures in a refusal (`alice has only 60.00`) are numbers it computed,
never text a principal wrote: they stay.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from decimal import Decimal
from typing import Any

from domain import amounts

PLACEHOLDER = "<value>"
# A value quoted in a refusal stands apart: not inside a longer word, name or number.
_APART = r"(?<![\w.-]){}(?![\w-])"
# A shorter text found inside a longer word says nothing of it (`bob` in `bobsleigh`).
_SHORTEST = 4


def runtime_error(exception: str) -> str:
    """The message of a program's own exception once it may have read data."""
    return f"{exception}; its message is not shown, as it may quote data the program read"


def refusal(name: str, text: str, computed: Mapping[str, Any], kind: str) -> str:
    """`text`, the refusal of a call of `name`, with the value of each computed argument
    written `<value>`; or, when one may remain, `name: refused (kind)` and which arguments
    came from data."""
    told = withhold(text, computed.values())
    if told is not None:
        return told
    return (
        f"{name}: refused ({kind}); the reason is not shown, as it may quote "
        f"{_listed(sorted(computed))} computed from data"
    )


def withhold(text: str, values: Iterable[Any]) -> str | None:
    """`text` with every form a refusal quotes of `values` written `<value>`, or None when
    some text of a value may remain in it."""
    values = list(values)
    for form in sorted(_forms(values), key=len, reverse=True):
        text = re.sub(_APART.format(re.escape(form)), PLACEHOLDER, text)
    # What is left may still hold a value, inside a longer word (`joanna` in `joanna-2`).
    if any(len(word) >= _SHORTEST and word in text for word in _texts(values)):
        return None
    return text


def computed_values(
    computed: Collection[str], arguments: Mapping[str, Any], validated: Mapping[str, Any]
) -> dict[str, list[Any]]:
    """By argument computed from data, the values a refusal may quote: as given, and as
    validated (`1` becomes `1.00`)."""
    return {
        name: [arguments[name], *([validated[name]] if name in validated else [])]
        for name in sorted(computed)
        if name in arguments
    }


def _forms(values: Iterable[Any]) -> set[str]:
    forms: set[str] = set()
    for value in _leaves(values):
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int) and value.bit_length() > 128:
            forms.add(amounts.shown(value))  # str() of an int past 4300 digits raises
            continue
        forms |= {str(value), repr(value)}
        if isinstance(value, Decimal | int | float):
            forms.add(amounts.shown(value))
            if isinstance(value, Decimal) and value.is_finite():
                forms |= {f"{value:f}", amounts.fmt(value)}
    return {form for form in forms if form}


def _texts(values: Iterable[Any]) -> set[str]:
    return {value for value in _leaves(values) if isinstance(value, str) and value}


def _leaves(values: Iterable[Any]) -> list[Any]:
    """The values, and every value inside a list or mapping among them."""
    leaves: list[Any] = []
    pending = list(values)
    while pending:
        value = pending.pop()
        leaves.append(value)
        if isinstance(value, Mapping):
            pending += [*value.keys(), *value.values()]
        elif isinstance(value, list | tuple | set | frozenset):
            pending += list(value)
    return leaves


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
