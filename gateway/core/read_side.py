"""The read side: a domain's resources, the log and runs, under the same policy.

A domain's resources (`Domain.read_routes`: the bank's accounts and statements) are what its
read use cases answer, read back into their own result types; the log and a run's story
are the gateway's results.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from uuid import UUID

from eventsourcing.application import AggregateNotFoundError
from pydantic import TypeAdapter

from application.audit import run_story
from application.principals import PrincipalView
from application.read_models.queries import WAIT_SECONDS
from application.read_routes import History, Listing, Record
from application.results import LogEvent, RunStory
from gateway.core.errors import GatewayError
from gateway.core.facade import Gateway
from gateway.core.paging import Page, check_limit, decode_cursor, page_of
from gateway.core.policy.decisions import call_refusal, may_read_any_run, may_read_events

MAX_PAGE = 1000
# A page of the log, read back from its JSON.
LOG_PAGE = TypeAdapter(list[LogEvent])


POLL_SECONDS = 0.02


class ReadSide:
    def __init__(self, gateway: Gateway, *, wait_seconds: float = WAIT_SECONDS) -> None:
        self.gateway = gateway
        self.wait_seconds = wait_seconds

    # Read your writes.

    def reach(self, min_position: int | None) -> None:
        """Return once the read models hold every event up to `min_position` (a write's
        answer gave it); past `wait_seconds`, `unavailable` naming the position. With a
        standby, the rest of the request reads it if it replays that far within the wait,
        else the primary."""
        queries = self.gateway.queries
        if min_position is None or queries is None:
            return  # without read models every read is answered from the log itself
        models = queries.read_models
        head = models.head()
        if min_position > head:
            raise GatewayError(
                "invalid-request",
                f"min_position: {min_position} is beyond the end of the log ({head}); "
                "give a position a write answered",
            )
        deadline = time.monotonic() + self.wait_seconds
        routing = queries.routing
        if routing.standby_reaches(min_position, deadline):
            assert routing.standby is not None
            routing.pin(routing.standby)
            return
        names = [models.tracking_name(n) for n in models.names]
        while (reached := min(models.store.positions(names).values())) < min_position:
            if time.monotonic() >= deadline:
                raise GatewayError(
                    "unavailable",
                    f"min_position: the read models did not reach position {min_position} "
                    f"within {self.wait_seconds:g} s (they are at {reached}); the write is in "
                    "the log: retry, or read with consistent=true",
                    extra={"retry_after": 1, "min_position": min_position},
                )
            if queries.is_fresh():
                time.sleep(POLL_SECONDS)  # a projector is on it
            else:
                models.catch_up(to=min_position)
        routing.pin(models.store)

    # A domain's resources (`application.read_routes`).

    def list_page(
        self,
        listing: Listing,
        principal: PrincipalView,
        *,
        cursor: str | None = None,
        limit: int = 100,
        consistent: bool = False,
        min_position: int | None = None,
    ) -> Page[Any]:
        """What the listing holds that this principal may see, by key, `limit` at a time."""
        check_limit(limit)
        after = None if cursor is None else decode_cursor(cursor, listing.name, str)
        self.reach(min_position)
        return _page(listing, self.listed(listing, principal, consistent=consistent), after, limit)

    def listed(
        self, listing: Listing, principal: PrincipalView, *, consistent: bool = False
    ) -> list[Any]:
        """Every record of the listing this principal may see."""
        outcome = self.gateway.call(principal, listing.use_case.name, {}, consistent=consistent)
        return _records(listing, outcome.result)

    def one(
        self,
        listing: Listing,
        principal: PrincipalView,
        key: str,
        *,
        consistent: bool = False,
        min_position: int | None = None,
    ) -> Any:
        """One record of the listing; 404 naming it if there is none, 403 if it is not the
        principal's to read."""
        self.reach(min_position)
        self._readable(listing, principal, key)
        return _one(listing, key, self.listed(listing, principal, consistent=consistent))

    def history_page(
        self,
        history: History,
        principal: PrincipalView,
        record: str,
        *,
        cursor: str | None = None,
        limit: int = 20,
        consistent: bool = False,
        min_position: int | None = None,
    ) -> Page[Any]:
        """A record's entries, newest first, `limit` at a time."""
        rows = self.history_rows(
            history,
            principal,
            record,
            cursor=cursor,
            limit=limit,
            consistent=consistent,
            min_position=min_position,
        )
        page = page_of(rows, limit, _history_list(history, record), _key(history.key))
        entry = history.entry
        items = page.items if entry is None else [entry(record, row) for row in page.items]
        return Page[Any](items=items, next_cursor=page.next_cursor)

    def history_rows(
        self,
        history: History,
        principal: PrincipalView,
        record: str,
        *,
        cursor: str | None,
        limit: int,
        consistent: bool,
        min_position: int | None,
    ) -> list[Any]:
        """Up to `limit + 1` rows of the history after `cursor`, newest first (the one more
        tells whether a next page follows)."""
        check_limit(limit)
        before = (
            None if cursor is None else decode_cursor(cursor, _history_list(history, record), int)
        )
        self.reach(min_position)
        # The history's own checks (404, 403, may call its use case) by calling it; it also
        # brings the read models up to date first when asked to.
        self.one(history.of, principal, record, consistent=consistent)
        rows_of = history.rows
        queries = self.gateway.queries
        if rows_of is None or queries is None:
            # Paged from the use case's own answer, newest first.
            outcome = self.gateway.call(
                principal, history.use_case.name, {history.argument: record}
            )
            entries = history.use_case.result_adapter().validate_python(outcome.result)
            if before is not None:
                entries = [e for e in entries if getattr(e, history.key) < before]
            return list(entries[: limit + 1])
        self.gateway.call(
            principal, history.use_case.name, {**history.probe, history.argument: record}
        )
        # From the copy the calls above read (pinned when they had a position to see).
        return list(queries.routing.read(lambda store: rows_of(store, record, limit + 1, before)))

    def record(
        self,
        route: Record,
        principal: PrincipalView,
        asked: dict[str, Any],
        *,
        consistent: bool = False,
    ) -> Any:
        """What the route's use case answers of one record (`asked`: its arguments); a
        record the use case finds none of is a resource that is not there (404)."""
        try:
            outcome = self.gateway.call(
                principal, route.use_case.name, asked, consistent=consistent
            )
        except GatewayError as refused:
            if not (refused.named_refusal or "").endswith("not-found"):
                raise
            raise GatewayError(
                "not-found", refused.message, run_id=refused.run_id, refusal=refused.refusal
            ) from None
        return route.use_case.result_adapter().validate_python(outcome.result)

    # The same reads on the caller's event loop, where the store allows it.

    async def async_one(
        self,
        listing: Listing,
        principal: PrincipalView,
        key: str,
        *,
        consistent: bool = False,
        min_position: int | None = None,
    ) -> Any | None:
        """As `one`, without a worker thread; None when it cannot be answered so (a store
        without asynchronous reads, a position to wait for, a read that must catch up
        first, a refused call): `one`, in a thread, then answers."""
        if min_position is not None:
            return None
        self._readable(listing, principal, key)
        rows = await self.async_listed(listing, principal, consistent=consistent)
        return None if rows is None else _one(listing, key, rows)

    async def async_list_page(
        self,
        listing: Listing,
        principal: PrincipalView,
        *,
        cursor: str | None = None,
        limit: int = 100,
        consistent: bool = False,
        min_position: int | None = None,
    ) -> Page[Any] | None:
        """As `list_page`, without a worker thread; None as for `async_one`."""
        check_limit(limit)
        after = None if cursor is None else decode_cursor(cursor, listing.name, str)
        if min_position is not None:
            return None
        rows = await self.async_listed(listing, principal, consistent=consistent)
        if rows is None:
            return None
        return _page(listing, rows, after, limit)

    async def async_listed(
        self, listing: Listing, principal: PrincipalView, *, consistent: bool = False
    ) -> list[Any] | None:
        outcome = await self.gateway.async_query(
            principal, listing.use_case.name, {}, consistent=consistent
        )
        return None if outcome is None else _records(listing, outcome.result)

    def events(self, principal: PrincipalView, after: int, limit: int) -> list[LogEvent]:
        if not may_read_events(principal):
            raise _not_an_auditor(principal, "the event log")
        # Each event named by its record's key, as the served domain's audit names them.
        page = self.gateway.operations.read_log(after, min(limit, MAX_PAGE))
        return LOG_PAGE.validate_python(page)

    def run(self, principal: PrincipalView, run_id: str) -> RunStory:
        if not may_read_any_run(principal):
            raise _not_an_auditor(principal, "runs")
        run_id = self.gateway.run_id(principal, run_id)
        try:
            return run_story(self.gateway.ledger, UUID(run_id), self.gateway.money_moves)
        except (ValueError, LookupError, AggregateNotFoundError):
            raise GatewayError("not-found", f"no run {run_id}") from None

    def _readable(self, listing: Listing, principal: PrincipalView, key: str) -> None:
        problem = listing.id_problem(key)
        if problem:
            raise GatewayError("not-found", f"no {listing.one}: {problem}")
        if listing.guard is None:
            return
        # Reading one is what calling the guard on it would be.
        refusal = call_refusal(principal, listing.guard, {listing.guard_argument: key})
        if refusal:
            raise GatewayError("forbidden", refusal)


def _not_an_auditor(principal: PrincipalView, what: str) -> GatewayError:
    return GatewayError(
        "forbidden", f"{what} may be read by auditors and admins, not principal {principal.name}"
    )


def _one(listing: Listing, key: str, rows: list[Any]) -> Any:
    for row in rows:
        if getattr(row, listing.key) == key:
            return row
    raise GatewayError("not-found", f"no {listing.one} {key}")


def _records(listing: Listing, answer: Any) -> list[Any]:
    records: list[Any] = listing.use_case.result_adapter().validate_python(answer)
    return records


def _page(listing: Listing, rows: list[Any], after: str | None, limit: int) -> Page[Any]:
    key = _key(listing.key)
    rows = sorted(rows, key=key)  # as the use case answers them, by key
    if after is not None:
        rows = [row for row in rows if key(row) > after]
    return page_of(rows, limit, listing.name, key)


def _key(name: str) -> Callable[[Any], Any]:
    return lambda row: getattr(row, name)


def _history_list(history: History, record: str) -> str:
    return f"{history.name}:{record}"
