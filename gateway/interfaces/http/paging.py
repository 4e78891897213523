"""The query parameters every paged list takes, and the one a read takes to see a write."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

from gateway.core.paging import MAX_CURSOR, MAX_LIMIT

Cursor = Annotated[
    str | None,
    Query(
        description="The `next_cursor` of the previous page; leave it out for the first page.",
        max_length=MAX_CURSOR,
    ),
]


Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description=f"Items per page, 1 to {MAX_LIMIT}.")]


MinPosition = Annotated[
    int | None,
    Query(
        ge=0,
        le=2**62,
        description="Wait (a few seconds at most) until the read models hold every event up "
        "to this log position: give the `position` a write answered to read your own write. "
        "Past the wait: 503 naming the position; beyond the log's end: 422.",
    ),
]
