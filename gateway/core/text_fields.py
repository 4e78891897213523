"""The texts a caller sends beside a use case's arguments: a program's source, the request it
answers, a message to the agent. Printable only (`domain.text`; lines, tabs kept), bounded.

A use case's own text arguments are checked by the use case (`UseCase`), one line each.
"""

from __future__ import annotations

from domain.text import line_and_column, unprintable
from gateway.core.errors import GatewayError

# A person's words: a request kept with a run, a message to the agent.
MAX_REQUEST = 4000


def check_source(source: str) -> None:
    """A program is text an editor shows as written: refused at its first unprintable
    character, by line and column, before anything runs or is recorded."""
    found = unprintable(source, lines=True)
    if found is not None:
        line, column = line_and_column(source, found.index)
        raise GatewayError(
            "invalid-program",
            f"source: {found.what} is not allowed; write it as an escape in a string",
            line=line,
            column=column,
        )


def check_words(field: str, text: str, *, max_length: int = MAX_REQUEST) -> None:
    """A person's request or message: printable lines of at most `max_length` characters."""
    if len(text) > max_length:
        raise GatewayError(
            "bad-request", f"{field}: {len(text)} characters, over the limit of {max_length}"
        )
    found = unprintable(text, lines=True)
    if found is not None:
        raise GatewayError("bad-request", f"{field}: {found}")
