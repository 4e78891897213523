"""Pages of a list that can grow: one shape for every list, opaque cursors, bounded limits.

A page is `{"items": [...], "next_cursor": "..." | null}`. The next page is asked for with
that cursor; `null` means there is no more. A cursor is opaque to clients: it holds the key
of the last item shown and the list it belongs to (base64url of a small JSON array), so a
cursor given to another list, or one that was altered, is refused with a clear error rather
than read as a different place. It grants nothing: every page is read under the same
policy as the first.

Keys never move: accounts by id, a statement by version, runs by log position, so an item
added between two pages is never shown twice, and none that existed is skipped.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from gateway.core.errors import GatewayError

T = TypeVar("T")
K = TypeVar("K", str, int)

# Every list takes `limit` from 1 to MAX_LIMIT; each has a default of its own.
MAX_LIMIT = 200
# A cursor is at most this long: an account id, a version or a position, and a list's name.
MAX_CURSOR = 256


class Page(BaseModel, Generic[T]):
    """One page of a list, in the list's own order."""

    model_config = ConfigDict(frozen=True)

    items: list[T] = Field(description="At most `limit` items, in the list's order.")
    next_cursor: str | None = Field(
        description="Pass it as `cursor` to read the next page; null when this is the last."
    )


def encode_cursor(list_name: str, key: str | int) -> str:
    raw = json.dumps([list_name, key], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, list_name: str, key_type: type[K]) -> K:
    """The key a cursor of `list_name` holds; `invalid-request` (422) for any other text."""
    if len(cursor) > MAX_CURSOR:
        raise _bad_cursor(f"is longer than {MAX_CURSOR} characters")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        made_for, key = json.loads(raw)
    except (binascii.Error, ValueError, TypeError):
        raise _bad_cursor("is not a cursor this service gave") from None
    if made_for != list_name:
        raise _bad_cursor(f"was given for another list, not for {list_name}")
    if type(key) is not key_type:
        raise _bad_cursor("is not a cursor this service gave")
    return key


def check_limit(limit: int) -> int:
    """The interfaces bound `limit` themselves (FastAPI, typer); this is the core's own check."""
    if not 1 <= limit <= MAX_LIMIT:
        raise GatewayError("invalid-request", f"limit: must be 1 to {MAX_LIMIT}, not {limit}")
    return limit


def page_of(
    items: Sequence[T], limit: int, list_name: str, key: Callable[[T], str | int]
) -> Page[T]:
    """The first `limit` of `items` (read with one more than `limit`, to know if more follow)."""
    shown = list(items[:limit])
    more = len(items) > limit and bool(shown)
    return Page[T](
        items=shown, next_cursor=encode_cursor(list_name, key(shown[-1])) if more else None
    )


def _bad_cursor(reason: str) -> GatewayError:
    return GatewayError("invalid-request", f"cursor: {reason}; start again without a cursor")
